import { type Node, type ParseError, parseTree } from "jsonc-parser";
import { type AllowRule, ruleText } from "./allow-rules.js";

/**
 * A JSON config's text with `rules` added to the options of the plugin entry `spec`, changing
 * nothing else of the file: the new text is spliced in where it goes (jsonc-parser finds where),
 * one rule a line, indented as the lines around it, with the file's line endings; comments, order
 * and the layout of everything else stay. The entry becomes `[spec, { "rules": […] }]` when it was
 * the bare name, gets a `rules` array when its options had none, and is added at the end of
 * `plugins` (made when missing) when the file has no such entry. Throws when the text is not a JSON
 * object, or the parts it edits are not of the config's shape.
 */
export function withAllowRules(text: string, spec: string, rules: readonly AllowRule[]): string {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true });
  if (root === undefined || root.type !== "object" || errors.length > 0) {
    throw new Error(`it is not a JSON object${errors[0] ? ` (a syntax error at character ${errors[0].offset})` : ""}`);
  }
  const layout = new Layout(text);
  const items = rules.map(ruleText);
  const plugins = child(root, "plugins");
  if (plugins === undefined) return layout.addProperty(root, `"plugins": ${layout.list([layout.entry(spec, items, layout.inner(root))], layout.inner(root))}`);
  if (plugins.type !== "array") throw new Error('its "plugins" is not an array');
  const entry = (plugins.children ?? []).find((each) => specifierOf(each) === spec);
  if (entry === undefined) return layout.addItems(plugins, [layout.entry(spec, items, layout.inner(plugins))]);
  const options = entry.type === "array" ? entry.children?.[1] : undefined;
  if (options === undefined) return layout.replace(entry, layout.entry(spec, items, layout.indentOf(entry)));
  if (options.type !== "object") throw new Error(`the options of ${spec} are not an object`);
  const existing = child(options, "rules");
  if (existing === undefined) return layout.addProperty(options, `"rules": ${layout.list(items, layout.inner(options))}`);
  if (existing.type !== "array") throw new Error(`the "rules" of ${spec} are not an array`);
  return layout.addItems(existing, items);
}

/** Where things go in the text, and how it is laid out: its indent unit and line ending. */
class Layout {
  readonly unit: string;
  readonly eol: string;

  constructor(readonly text: string) {
    this.unit = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
    this.eol = text.includes("\r\n") ? "\r\n" : "\n";
  }

  /** The whitespace that starts the line a node starts on. */
  indentOf(node: Node): string {
    const start = this.text.lastIndexOf("\n", node.offset - 1) + 1;
    return /^[ \t]*/.exec(this.text.slice(start))?.[0] ?? "";
  }

  /** The indent of what is inside a node: its first child's, or one unit more than the node's. */
  inner(node: Node): string {
    const first = node.children?.[0];
    return first !== undefined && this.spansLines(node) ? this.indentOf(first) : this.indentOf(node) + this.unit;
  }

  spansLines(node: Node): boolean {
    return this.text.slice(node.offset, node.offset + node.length).includes("\n");
  }

  /** `[a]`, or one item a line at `indent` when there are several. */
  list(items: readonly string[], indent: string): string {
    if (items.length === 1) return `[${items[0]}]`;
    return `[${this.eol}${items.map((item) => `${indent}${this.unit}${item}`).join(`,${this.eol}`)}${this.eol}${indent}]`;
  }

  /** A plugin entry with these rules. */
  entry(spec: string, rules: readonly string[], indent: string): string {
    return `[${JSON.stringify(spec)}, { "rules": ${this.list(rules, indent)} }]`;
  }

  /** Adds items at the end of an array, one a line when it spans lines, else on its line. */
  addItems(array: Node, items: readonly string[]): string {
    const last = array.children?.at(-1);
    if (last === undefined) return this.replace(array, this.list(items, this.indentOf(array)));
    const at = last.offset + last.length;
    const joined = this.spansLines(array) ? items.map((item) => `,${this.eol}${this.indentOf(last)}${item}`).join("") : items.map((item) => `, ${item}`).join("");
    return this.text.slice(0, at) + joined + this.text.slice(at);
  }

  /** Adds `"key": value` after an object's last property, one a line when it spans lines. */
  addProperty(object: Node, property: string): string {
    const last = object.children?.at(-1);
    if (last === undefined) return this.replace(object, `{ ${property} }`);
    const at = last.offset + last.length;
    const joined = this.spansLines(object) ? `,${this.eol}${this.indentOf(last)}${property}` : `, ${property}`;
    return this.text.slice(0, at) + joined + this.text.slice(at);
  }

  replace(node: Node, value: string): string {
    return this.text.slice(0, node.offset) + value + this.text.slice(node.offset + node.length);
  }
}

function child(node: Node, key: string): Node | undefined {
  return node.children?.find((property) => property.children?.[0]?.value === key)?.children?.[1];
}

function specifierOf(entry: Node): string | undefined {
  if (entry.type === "string") return entry.value as string;
  const first = entry.type === "array" ? entry.children?.[0] : undefined;
  return first?.type === "string" ? (first.value as string) : undefined;
}
