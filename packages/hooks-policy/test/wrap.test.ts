import { describe, expect, it } from "vitest";
import { createPolicy } from "../src/index.js";
import { parseCommand } from "../src/shell/_parse.js";
import { decide as decideWith, makeWorkspace } from "./_helpers.js";

// Issue 39: code one program hands to another meets the user's own rules, and a bash command's writes meet the path rules.
const { ws } = makeWorkspace();
const ALL_BUT_RM = { default: "ask" as const, rules: [{ tool: "bash", command: "*", decision: "allow" as const }, { tool: "bash", command: "rm", decision: "deny" as const }] };
const WRITES = {
  default: "ask" as const,
  rules: [
    { tool: "bash", command: "*", decision: "allow" as const },
    { tool: ["write", "edit"], path: "${workspace}/**", decision: "allow" as const },
    { tool: ["write", "edit"], path: "/etc/**", decision: "deny" as const },
  ],
};
const policyOf = (options: object) => createPolicy(JSON.parse(JSON.stringify(options).replaceAll("${workspace}", ws)), { cwd: ws, workspace: ws });
const allButRm = policyOf(ALL_BUT_RM);
const writes = policyOf(WRITES);
const noPaths = policyOf({ default: "ask", rules: [{ tool: "bash", command: "*", decision: "allow" }, { tool: "bash", command: "rm -rf *", decision: "deny" }] });
const recommended = policyOf({ extends: ["recommended"] });
const decision = (policy: ReturnType<typeof createPolicy>, command: string) => decideWith(policy, ws, "bash", { command }).decision;

describe("shells of other languages: code the policy cannot read", () => {
  it.each(["tcsh -c 'rm x'", "csh -fc 'rm x'", "nu -c 'rm x'", "elvish -c 'rm x'", "xonsh -c 'rm x'", "pwsh -Command 'rm x'", "tcsh <<< 'rm x'"])("%s: the rm it names is denied", (command) => {
    expect(decision(allButRm, command)).toBe("deny");
  });
  it.each(["pwsh -c 'Remove-Item -Recurse x'", "powershell -NoProfile 'del x'", "cmd /c del x", "pwsh -EncodedCommand cgBtACAAeAA=", "pwsh ./x.ps1", "echo 'rm x' | tcsh"])("%s asks", (command) => {
    expect(decision(allButRm, command)).not.toBe("allow");
  });
  it("a foreign shell is a shell of the inventory: asked unconfined under recommended, its version allowed", () => {
    expect(decision(recommended, "tcsh -c ls")).toBe("ask");
    expect(decision(recommended, "pwsh --version")).toBe("allow");
  });
  it("versioned and other POSIX shells are parsed as shells", () => {
    for (const command of ["bash5 -c 'rm x'", "oksh -c 'rm x'", "ksh93 -c 'rm x'", "hush -c 'rm x'"]) expect(decision(allButRm, command)).toBe("deny");
  });
});

describe("wrappers and runners run their command under the rules", () => {
  it.each([
    "pkexec rm x",
    "sg wheel -c 'rm x'",
    "sg wheel 'rm x'",
    "arch -x86_64 rm x",
    "setarch x86_64 -R rm x",
    "run0 -u root rm x",
    "gosu nobody rm x",
    "docker exec -it web rm x",
    "docker -H tcp://h exec web rm x",
    "docker run --rm alpine rm x",
    "docker run --entrypoint rm alpine x",
    "docker compose exec web rm x",
    "kubectl exec p -- rm x",
    "kubectl -n ns exec -it p -c main -- rm x",
    "kubectl run t --image=busybox -- rm x",
    "ip netns exec blue rm x",
    "nix develop -c rm x",
    "vagrant ssh -c 'rm x'",
    "sbatch --wrap='rm x'",
    "srun -n 2 rm x",
    "watchexec -e ts 'rm x'",
    "watchexec --shell=none -- rm x",
    "entr -s 'rm x'",
    "nodemon --exec 'rm x'",
    "at now <<< 'rm x'",
    "batch <<< 'rm x'",
    "parallel rm ::: x",
    "scp -S rm a host:b",
    "git filter-branch --tree-filter 'rm x' HEAD",
    "make -f /dev/stdin <<< $'all:\\n\\trm x'",
    "prename 's/.*/`rm x`/e' list.txt",
    "npm pkg set scripts.clean='rm x' && npm run clean",
  ])("%s → deny", (command) => {
    expect(decision(allButRm, command)).toBe("deny");
  });
  it.each(["echo 'rm x' | xargs -I{} sh -c '{}'", "echo 'rm x' | at now", "at -f job.sh now", "crontab <<< '* * * * * rm x'", "sbatch job.sh", "npx --yes rimraf x", "pnpm dlx rimraf x", "uvx ruff check", "make -f <(echo all:)"])(
    "%s → not allow",
    (command) => {
      expect(decision(allButRm, command)).not.toBe("allow");
    },
  );
  it.each(["docker exec web ls", "kubectl exec p -- cat /etc/os-release", "arch", "timeout 10 -- ls", "npx tsc --noEmit", "parallel 'echo {}' ::: a b", "at -l", "crontab -l", "mytool at noon"])("%s → allow", (command) => {
    expect(decision(allButRm, command)).toBe("allow");
  });
  it("recommended: the watched command is judged as a command (the project's build asks only untrusted)", () => {
    expect(decideWith(recommended, ws, "bash", { command: "watchexec -e ts -- npm test" }).reason).not.toContain("inventory does not know ts");
    expect(decision(recommended, "parallel ::: 'rm -rf /'")).toBe("deny");
    expect(decision(recommended, "parallel gzip -k ::: out.txt list.txt")).toBe("allow");
  });
  it("perl-rename's expression is Perl, util-linux rename's arguments are strings", () => {
    expect(decision(recommended, "rename .ts .mts src/a.ts")).toBe("allow");
    expect(decision(recommended, "prename 's/\\.txt$/.md/' list.txt")).toBe("allow");
    expect(decision(recommended, "prename 's/a/b/e' list.txt")).toBe("ask");
    expect(decision(recommended, "rename 's{a}{/etc/b}' list.txt")).toBe("ask");
  });
  it("a program's words are parsed by the wrapper's options: watchexec's -e takes a value", () => {
    const parts = parseCommand("watchexec -e ts -- npm test").parts.filter((part) => part.kind === "command");
    expect(parts.map((part) => (part.kind === "command" ? part.words[0]?.value : ""))).toEqual(["npm"]);
  });
});

describe("a bash command's writes and the rules", () => {
  it("awk's output redirections and a link made by the command meet the write rules", () => {
    expect(decision(writes, `awk '{print > "/etc/hosts"}' list.txt`)).toBe("deny");
    expect(decision(writes, "gawk -i inplace '{print}' /etc/hosts")).toBe("deny");
    expect(decision(writes, "awk '{print > $1}' list.txt")).toBe("ask");
    expect(decision(writes, "ln -s /etc e; cd e; echo x > hosts")).toBe("deny");
    expect(decision(writes, `awk '{print > "out.txt"}' list.txt`)).toBe("allow");
  });
  it("a change of mode is not a content write for the policy's own path rules; a redirect outside them is the default's", () => {
    expect(decision(writes, "chmod 777 /etc/hosts")).toBe("allow");
    expect(decision(writes, "echo x > /tmp/elsewhere")).toBe("ask");
    expect(decision(recommended, "chmod 777 /etc/hosts")).toBe("ask");
  });
  it("where no path rule judges writes, a program's writes ride on its own rule, a redirect's do not", () => {
    expect(decision(noPaths, "rm -r /tmp/x")).toBe("allow");
    expect(decision(noPaths, "find . -delete")).toBe("allow");
    expect(decision(noPaths, "echo k >> ~/.ssh/authorized_keys")).toBe("ask");
  });
});
