import { type ProgramRow, parseRow, RowError } from "./_row.js";
import { PROGRAMS } from "./_programs.js";

/** A program the inventory knows: the row that says what it is, and where the row came from. */
export interface InventoryEntry {
  /** The name the row is written under (`python3` for `python3.12`). */
  name: string;
  row: ProgramRow;
  /** `inventory` for the built-in table, else the layer whose `programs` wrote it. */
  source: string;
}

interface Written {
  text: string;
  source: string;
  /** Written by a locked layer: a later layer may not replace it. */
  locked?: boolean;
}

/**
 * What toolhost knows of programs: the built-in table, and rows a policy adds (later ones replace
 * earlier ones of the same name). Rows are read when first looked up, so a hook's start pays for
 * a map of names, not for every row.
 */
export class Inventory {
  readonly #written: Map<string, Written>;
  readonly #read = new Map<string, InventoryEntry | null>();

  private constructor(written: Map<string, Written>) {
    this.#written = written;
  }

  /** The built-in table. */
  static builtin(): Inventory {
    return new Inventory(builtinNames());
  }

  /**
   * This inventory with more rows (`programs` of a policy's layers, in order). Throws a
   * `RowError` naming the program when a row does not follow the grammar.
   */
  with(rows: ReadonlyArray<{ name: string; text: string; source: string; locked?: boolean }>): Inventory {
    if (rows.length === 0) return this;
    const written = new Map(this.#written);
    for (const { name, text, source, locked } of rows) {
      try {
        parseRow(text);
      } catch (error) {
        throw new RowError(`the row of "${name}" (${JSON.stringify(text)}) in ${source}: ${(error as Error).message}`);
      }
      // What a locked layer (an organisation's) says a program is, a later layer cannot say otherwise.
      if (written.get(name)?.locked && !locked) continue;
      written.set(name, { text, source, ...(locked && { locked }) });
    }
    return new Inventory(written);
  }

  /** The row of a program, by its name (`/usr/bin/grep` is `grep`; `python3.12` is `python3`; `mkfs.ext4` is `mkfs`). */
  lookup(program: string): InventoryEntry | undefined {
    const found = this.#read.get(program);
    if (found !== undefined) return found ?? undefined;
    const entry = this.#entry(program);
    this.#read.set(program, entry ?? null);
    return entry;
  }

  #entry(program: string): InventoryEntry | undefined {
    for (const name of spellings(program)) {
      const written = this.#written.get(name);
      if (written) return { name, row: rowOf(written.text), source: written.source };
    }
    return undefined;
  }

  /** Every program and its row as written: the README's table. */
  entries(): Array<{ names: string; text: string }> {
    return PROGRAMS.map(([names, text]) => ({ names, text }));
  }
}

/** The names a program may be written under in the table: itself, then without a version (`gcc-12`, `python3.12`), then its family (`mkfs.ext4`). */
function spellings(program: string): string[] {
  const names = [program];
  const bare = program.replace(/[-.]?[0-9][0-9.]*$/, "");
  if (bare !== program && bare !== "") names.push(bare);
  const digitless = bare.replace(/[0-9]+$/, "");
  if (digitless !== bare && digitless !== "") names.push(digitless);
  const dot = program.indexOf(".");
  if (dot > 0 && !/[0-9]/.test(program.slice(0, dot))) names.push(program.slice(0, dot));
  return names;
}

/** Rows read, by their text: the programs of one row (`grep egrep fgrep`) share it. */
const rows = new Map<string, ProgramRow>();

function rowOf(text: string): ProgramRow {
  let row = rows.get(text);
  if (!row) rows.set(text, (row = parseRow(text)));
  return row;
}

let builtin: Map<string, Written> | undefined;

function builtinNames(): Map<string, Written> {
  if (builtin) return builtin;
  builtin = new Map();
  for (const [names, text] of PROGRAMS) {
    for (const name of names.split(" ")) builtin.set(name, { text, source: "inventory" });
  }
  return builtin;
}
