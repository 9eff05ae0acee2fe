// Run by core's build: writes dist/config/schema.json, the file `$schema` of a config points at.
import { writeFileSync } from "node:fs";
import { configJsonSchema } from "./schema.js";

writeFileSync(new URL("./schema.json", import.meta.url), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
