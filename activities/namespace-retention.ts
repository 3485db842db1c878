/**
 * How long the Temporal namespace keeps a closed workflow (its retention), read from the server. A
 * deposit whose very first read shows the refund of a completed deposit asks it, to know whether an
 * earlier run of itself, one that told the journey the deposit completed, could have been removed
 * since (workflows/deposit/run.ts, `noEarlierRunCouldHaveToldIt`). No call to the service.
 */
import { Context } from '@temporalio/activity';

export function createNamespaceActivities() {
  return {
    /** The namespace's retention of closed workflows, in milliseconds (0 when the server states none). */
    async namespaceRetentionMs(): Promise<number> {
      const { client, info } = Context.current();
      const { config } = await client.workflowService.describeNamespace({ namespace: info.workflowNamespace });
      const ttl = config?.workflowExecutionRetentionTtl;
      if (!ttl) return 0;
      // `seconds` is a protobuf Long (or a number, by the decoder's options): its decimal string reads as either.
      return Number(String(ttl.seconds ?? 0)) * 1000 + Math.floor((ttl.nanos ?? 0) / 1_000_000);
    },
  };
}

export type NamespaceActivities = ReturnType<typeof createNamespaceActivities>;
