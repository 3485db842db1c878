/**
 * multipart/form-data bodies, encoded here rather than by the HTTP library so the client knows the
 * exact bytes it sends. The interface signs multipart requests with an empty body hash, so these
 * bytes are not hashed; they are still fixed before the first attempt and resent unchanged.
 */
import { randomUUID } from 'node:crypto';

export interface MultipartFile {
  /** The file name the service sees. */
  filename: string;
  /** MIME type, e.g. `application/pdf`. */
  contentType: string;
  content: Uint8Array;
}

export type MultipartPart = { name: string; value: string } | { name: string; file: MultipartFile };

export interface MultipartBody {
  bytes: Uint8Array;
  contentType: string;
}

/** Quotes a header parameter value; CR, LF and `"` are percent-encoded as the HTML standard does. */
function quoteParameter(value: string): string {
  return `"${value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')}"`;
}

export function encodeMultipart(parts: readonly MultipartPart[], boundary = `rampflow-${randomUUID()}`): MultipartBody {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoteParameter(part.name)}`;
    if ('file' in part) {
      head += `; filename=${quoteParameter(part.file.filename)}\r\nContent-Type: ${part.file.contentType}\r\n\r\n`;
      chunks.push(Buffer.from(head, 'utf8'), Buffer.from(part.file.content), Buffer.from('\r\n', 'utf8'));
    } else {
      chunks.push(Buffer.from(`${head}\r\n\r\n${part.value}\r\n`, 'utf8'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return { bytes: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
