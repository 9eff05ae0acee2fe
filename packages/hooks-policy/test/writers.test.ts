// Issue 39, part writers: options that write, set the system or run (judged as reads before), an
// option a closed table does not list, resource exhaustion, and everyday readings asked before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "../src/index.js";
import { parseArguments } from "../src/shell/_options.js";
import { parseCommand } from "../src/shell/_parse.js";
import { MAX_BYTES, sizeOf } from "../src/shell/_exhaustion.js";
import { readSed } from "../src/shell/_sed.js";
import { makeWorkspace } from "./_helpers.js";
import { contained } from "./inventory-classes.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => ({ ws, cleanup } = makeWorkspace()));
afterAll(() => cleanup());

type Mode = "open" | "trusted" | "confined";
function decide(command: string, mode: Mode = "open", preset: "recommended" | "readonly" = "recommended") {
  const policy = createPolicy({ extends: [preset] }, { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
  return policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }], ...(mode === "confined" && { confinement: contained(ws) }) } });
}

const writes = (command: string) => parseCommand(command).parts.filter((part) => part.kind === "write").map((part) => (part.kind === "write" ? part.path.value : undefined));

describe("options that write, set the system or run", () => {
  it.each([
    ["tree -o out.txt", ["out.txt"]],
    ["tree -R /etc", ["/etc"]],
    ["file -C -m magic", ["magic.mgc"]],
    ["file --compile", ["magic.mgc"]],
    ["csplit -f /etc/profile.d/x list.txt 1", ["/etc/profile.d/x00"]],
    ["csplit list.txt 1", ["xx00"]],
    ["chattr +i /etc/resolv.conf", ["/etc/resolv.conf"]],
    ["chattr -R -i sub", ["sub"]],
    ["shuf -o out.txt list.txt", ["out.txt"]],
    ["sdiff -o merged.txt a b", ["merged.txt"]],
    ["mkfifo -m 600 sub/p", ["sub/p"]],
    ["fallocate -l 10M sub/x.img", ["sub/x.img"]],
  ])("%s writes %j", (command, paths) => {
    expect(writes(command)).toEqual(paths);
  });

  it.each(["tree -o out.txt", "file -C -m magic", "date -s 2020-01-01", "date --set=2020-01-01", "date 0101000020", "tree --not-an-option"])("readonly: %s is not allowed", (command) => {
    expect(decide(command, "open", "readonly").decision).not.toBe("allow");
  });

  it.each(["tree -L 2", "date +%s", "date -d yesterday +%F", "file src/a.ts", "date -R"])("readonly: %s stays allowed", (command) => {
    expect(decide(command, "open", "readonly").decision).toBe("allow");
  });

  it("an option a closed table does not list is unknown, and says so", () => {
    expect(parseArguments("tree", [{ text: "--frobnicate", value: "--frobnicate", splits: false, tilde: false }]).unknown).toEqual(["--frobnicate"]);
    expect(parseArguments("tree", [{ text: "-L", value: "-L", splits: false, tilde: false }, { text: "2", value: "2", splits: false, tilde: false }]).unknown).toBeUndefined();
    const explanation = decide("file --frobnicate src/a.ts");
    expect(explanation.decision).toBe("ask");
    expect(explanation.reason).toContain("the inventory knows every option of file but not this one");
  });
});

describe("resource exhaustion", () => {
  it.each([":(){ :|:& };:", "bomb(){ bomb | bomb & }; bomb", "for i in $(seq 1 100000); do (sleep 600 &); done", "while :; do sleep 1 & done"])(
    "%s asks unconfined; confined with a limit on processes the sandbox ends it",
    (command) => {
      for (const mode of ["open", "trusted"] as const) expect(decide(command, mode).decision, `${mode}: ${decide(command, mode).reason}`).toBe("ask");
      const confined = decide(command, "confined");
      expect(confined.decision, confined.reason).toBe("allow");
      expect(confined.parts.map((part) => part.note ?? "").join(" ")).toContain("processes");
    },
  );

  it.each([
    "yes > out.txt",
    "yes spam | tee -a build.log > /dev/null",
    "cat /dev/zero > big.bin",
    "head -c 500G /dev/zero > big.img",
    "fallocate -l 1T big.img",
    "dd if=/dev/zero of=zeros.bin bs=1G count=1000",
    "dd if=/dev/urandom of=x.bin",
    "seq inf > out.txt",
    "cat /dev/urandom | gzip > noise.gz",
    "tr -dc a-z < /dev/urandom > pw.txt",
    "yes | sort > sorted.txt",
  ])("%s asks, unconfined and confined (a file-size limit bounds one file, not the disk)", (command) => {
    for (const mode of ["open", "trusted", "confined"] as const) expect(decide(command, mode).decision, `${mode}: ${decide(command, mode).reason}`).toBe("ask");
  });

  it.each([
    "yes | head -n 3",
    "head -c 16 /dev/urandom | xxd",
    "head -c 1M /dev/zero > sub/zeros.bin",
    "dd if=/dev/zero of=sub/blank.img bs=1M count=4",
    "fallocate -l 10M sub/test.img",
    "seq 1 1000 > sub/nums.txt",
    "yes > /dev/null",
    "tr -dc a-z < /dev/urandom | head -c 20",
    "for f in a b; do sleep 1 & done; wait",
  ])("%s stays allowed", (command) => {
    for (const mode of ["open", "trusted", "confined"] as const) expect(decide(command, mode).decision, `${mode}: ${decide(command, mode).reason}`).toBe("allow");
  });

  it("reads sizes as coreutils writes them", () => {
    expect(sizeOf("500G")).toBe(500 * 1024 ** 3);
    expect(sizeOf("10M")).toBe(10 * 1024 ** 2);
    expect(sizeOf("1KB")).toBe(1000);
    expect(sizeOf("4096")).toBe(4096);
    expect(sizeOf("1GiB")).toBe(MAX_BYTES);
    expect(sizeOf("lots")).toBeUndefined();
  });
});

describe("readings asked before, and their dangerous neighbours", () => {
  it.each([
    ["mkfifo sub/pipe", "mkfifo /etc/x"],
    ["cpio -it < a.cpio", "cpio -i < a.cpio"],
    ["bsdtar -tf a.tar", "bsdtar -xPf a.tar"],
    ["ssh-add -l", "ssh-add -D"],
    ["ssh-add -L", "SSH_AUTH_SOCK=/tmp/x/agent.1 ssh-add -l"],
    ["perf stat ls", "perf stat -p 1"],
    ["ip -br addr", "ip link set eth0 down"],
    ["ip route get 1.1.1.1", "ip a a 10.0.0.1/24 dev eth0"],
    ["ifconfig", "ifconfig eth0 down"],
    ["route -n", "route add default gw 10.0.0.1"],
    ["mount | grep /work", "mount /dev/sdb1 /mnt"],
    ["run-parts --test /etc/cron.daily", "run-parts /etc/cron.daily"],
    ["dd if=/dev/zero of=sub/blank.img bs=1M count=4", "dd if=sub/x of=/dev/sda"],
    ["hg status", "hg push"],
    ["bash -c \"hg commit -m 'title'\"", "hg --config hooks.pre-status=id status"],
    ["ccache -s", "ccache -M 50G"],
  ])("%s is allowed; %s asks", (harmless, dangerous) => {
    expect(decide(harmless).decision, decide(harmless).reason).toBe("allow");
    expect(decide(dangerous).decision, decide(dangerous).reason).not.toBe("allow");
  });

  it.each(["ccache gcc -c src/x.c -o build/x.o", "gtimeout 60 npm test", "PERL5LIB=lib prove -l t/", "py-spy record -o sub/profile.svg -- python3 scripts/gen.py"])("trusted: %s runs the project's build under a wrapper", (command) => {
    expect(decide(command, "trusted").decision, decide(command, "trusted").reason).toBe("allow");
  });

  it.each(["gtimeout 5 rm -rf ~", "py-spy record -o x.svg -- rm -rf /", "py-spy record -o x.svg rm -rf /"])("%s: the command the wrapper runs is judged", (command) => {
    expect(decide(command, "trusted").decision).not.toBe("allow");
  });

  it("reads a sed script that runs on as GNU sed refuses it, command by command", () => {
    expect(readSed("xp").unreadable).toBeUndefined();
    expect(readSed("xw /etc/x").writes).toEqual(["/etc/x"]);
    expect(decide("sed -n xp file.txt").decision).toBe("allow");
  });
});
