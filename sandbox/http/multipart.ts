/**
 * Reads a multipart/form-data body with the WHATWG parser built into Node (undici's Response), so
 * the sandbox needs no multipart dependency.
 */
import { invalidParameters } from './errors';

export async function readMultipart(rawBody: Buffer, contentType: string | undefined): Promise<FormData> {
  if (contentType === undefined || !/^multipart\/form-data\b/i.test(contentType)) {
    throw invalidParameters('the body must be sent as multipart/form-data');
  }
  try {
    return await new Response(rawBody, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw invalidParameters('the multipart body could not be read');
  }
}
