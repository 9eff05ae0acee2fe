export { LineReader, type LineEvent } from "./lines.js";
export { readCut, type CutMessage, type MessageId } from "./ids.js";
