/**
 * Failures keep their message and stack trace in their encoded attributes, where the payload codec
 * seals them, instead of in plain fields of the history. The SDK loads it by path (the data
 * converter's `failureConverterPath`) with a plain require, in clients, in workers and inside the
 * workflow bundle, so it is plain CommonJS rather than TypeScript.
 */
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
