/**
 * Paginated lists (interface: "Limits": pageNum >= 1, pageSize 1..100, on every list).
 *
 * `list(...)` returns one page; `iterate(...)` walks every page from the one given. Records can move
 * between pages while we walk (a new record pushes the rest down), so the iterator skips an id it
 * has already yielded, and it stops once the pages walked cover `total` or a page comes back empty.
 */
import type { Page, Pagination } from './schemas';

/** The largest page the service allows, and the iterator's default: fewest round trips. */
export const MAX_PAGE_SIZE = 100;

export async function* iteratePages<T extends { id: string }>(
  fetchPage: (page: Required<Pagination>) => Promise<Page<T>>,
  start: Pagination,
): AsyncGenerator<T, void, undefined> {
  const pageSize = start.pageSize ?? MAX_PAGE_SIZE;
  const seen = new Set<string>();
  for (let pageNum = start.pageNum ?? 1; ; pageNum += 1) {
    const page = await fetchPage({ pageNum, pageSize });
    for (const item of page.list) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    // The service's own pageSize says how far this page reached; ours is the fallback if it echoes nonsense.
    const reportedSize = page.pageSize >= 1 ? page.pageSize : pageSize;
    if (page.list.length === 0 || pageNum * reportedSize >= page.total) return;
  }
}
