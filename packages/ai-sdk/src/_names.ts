/** Tool names to keep: `include` (all when absent), minus `exclude`; each entry a name or a glob with `*` and `?`. */
export function nameFilter(include: readonly string[] | undefined, exclude: readonly string[] | undefined): (name: string) => boolean {
  const included = include?.map(globOf);
  const excluded = (exclude ?? []).map(globOf);
  return (name) => (included === undefined || included.some((glob) => glob.test(name))) && !excluded.some((glob) => glob.test(name));
}

function globOf(pattern: string): RegExp {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".");
  return new RegExp(`^${source}$`);
}
