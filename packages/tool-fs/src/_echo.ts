/** The most characters of a model's input (a path, a pattern) that a message repeats. */
export const ECHO_MAX = 200;

/**
 * An input as a message shows it: quoted, and cut to `max` characters with a count of the rest,
 * so a 5 MB path does not come back whole in the error that refuses it.
 */
export function echo(input: string, max = ECHO_MAX): string {
  if (input.length <= max) return JSON.stringify(input);
  return `${JSON.stringify(input.slice(0, max))}… (${(input.length - max).toLocaleString("en-US")} more characters)`;
}

/** Plain text cut the same way, without quotes (for messages that already frame it). */
export function capped(text: string, max = ECHO_MAX * 2): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${(text.length - max).toLocaleString("en-US")} more characters)`;
}
