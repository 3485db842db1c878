/** The raw query builder and the multipart encoder. */
import { describe, expect, it } from 'vitest';
import { encodeMultipart } from '../../ramp/multipart';
import { buildRawQuery, encodeQueryComponent } from '../../ramp/query';

describe('buildRawQuery', () => {
  it('keeps the order given and skips undefined values', () => {
    expect(
      buildRawQuery([
        ['status', 'RECEIVED'],
        ['pageNum', 2],
        ['customerId', undefined],
        ['pageSize', 10],
      ]),
    ).toBe('status=RECEIVED&pageNum=2&pageSize=10');
  });

  it('percent-encodes everything but unreserved characters, UTF-8 included', () => {
    expect(encodeQueryComponent("a+b c/d?e&f=g!'()*~._-")).toBe('a%2Bb%20c%2Fd%3Fe%26f%3Dg%21%27%28%29%2A~._-');
    expect(encodeQueryComponent('Zoë')).toBe('Zo%C3%AB');
  });

  it('is empty for no parameters', () => {
    expect(buildRawQuery([])).toBe('');
  });
});

describe('encodeMultipart', () => {
  it('produces a body a standard parser reads back, with quoted names escaped', async () => {
    const body = encodeMultipart(
      [
        { name: 'id', value: 'd-1' },
        {
          name: 'file',
          file: {
            filename: 'a "quoted"\r\nname.txt',
            contentType: 'text/plain',
            content: new TextEncoder().encode('héllo'),
          },
        },
      ],
      'test-boundary',
    );
    expect(body.contentType).toBe('multipart/form-data; boundary=test-boundary');
    expect(Buffer.from(body.bytes).toString('latin1')).toContain('filename="a %22quoted%22%0D%0Aname.txt"');
    const form = await new Response(body.bytes, { headers: { 'content-type': body.contentType } }).formData();
    expect(form.get('id')).toBe('d-1');
    const file = form.get('file') as File;
    expect(await file.text()).toBe('héllo');
    // The escaping is the HTML standard's, so the parser restores the original name.
    expect(file.name).toBe('a "quoted"\r\nname.txt');
  });
});
