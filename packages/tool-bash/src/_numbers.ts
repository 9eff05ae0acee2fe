/**
 * A whole number with commas between thousands (`12,345`), as `toLocaleString("en-US")` writes
 * it, without its cost: the first call of that loads the locale data, about 25 ms measured.
 */
export function withCommas(value: number): string {
  const digits = String(Math.trunc(Math.abs(value)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return value < 0 ? `-${grouped}` : grouped;
}

/** Bytes in the units a person reads: `8 GiB`, `1.5 MiB`, `900 bytes`. */
export function bytesText(bytes: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}
