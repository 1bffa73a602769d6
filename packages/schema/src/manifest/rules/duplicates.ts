/**
 * Each entry whose key an earlier entry already has, mapped to that earlier entry's index: the
 * rules report `*_DUPLICATE` at the later entry and name the first.
 */
export function firstDuplicates<T>(
  items: readonly T[],
  key: (item: T) => string,
): Map<number, number> {
  const seen = new Map<string, number>();
  const duplicates = new Map<number, number>();
  items.forEach((item, i) => {
    const first = seen.get(key(item));
    if (first === undefined) seen.set(key(item), i);
    else duplicates.set(i, first);
  });
  return duplicates;
}
