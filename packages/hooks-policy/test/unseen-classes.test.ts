// Issue 39, the own-unseen set's classes: publishing goals of builds, toolchains whose first word is
// a subcommand, package removal, the other clouds' reads, local clusters, systemctl's and crontab's
// reads, sqlite's commands on standard input, yq's load and strenv, trap's builtin, Bazel's labels.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "../src/index.js";
import { parseRow } from "../src/inventory/_row.js";
import { makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterAll(() => cleanup());

type Mode = "open" | "trusted";
function decide(command: string, mode: Mode) {
  const policy = createPolicy({ extends: ["recommended"] }, { cwd: ws, workspace: ws, trustedWorkspace: mode === "trusted" });
  return policy.decide({ tool: "bash", args: { command }, access: { commands: [{ command, cwd: ws }] } });
}

/** Never allowed unconfined, trusted or not. */
const ASKED = [
  // A build's goals anywhere on the line: publishing is not the project's build.
  "mvn deploy",
  "mvn -B -DskipTests clean verify deploy",
  "mvn release:perform",
  "gradle clean build publish",
  "gradle publishToMavenLocal",
  "sbt +publishSigned",
  "lein deploy clojars",
  "lerna publish from-package --yes",
  "lerna version --yes",
  // swift and dotnet: subcommands, not scripts of the workspace.
  "swift package-registry publish org.pkg 1.0.0",
  "dotnet nuget push app.nupkg -k KEY -s https://api.nuget.org/v3/index.json",
  "dotnet tool install -g dotnet-ef",
  "dotnet dev-certs https --trust",
  "dotnet workload install maui",
  // Compilers' output outside the workspace.
  "gcc -o /usr/local/bin/tool src/main.c",
  "zig cc -o /usr/local/bin/tool src/main.c",
  "zig build-exe src/main.zig -femit-bin=/usr/local/bin/tool",
  // Removing installed packages changes the system or the user's tools.
  "brew uninstall --force node",
  "brew autoremove",
  "pip uninstall -y requests",
  "pipx uninstall black",
  "gem uninstall rails",
  // The user's settings, code, credentials.
  "direnv allow",
  "direnv allow sub",
  "duckdb -c \"COPY (SELECT 'x') TO '/home/u/.bashrc'\"",
  "glab variable list",
  "glab variable get TOKEN",
  "tea login add",
  "tea pulls merge 3",
  "sqlite3 app.db <<< '.shell id'",
  "echo '.system id' | sqlite3 app.db",
  "yq -n 'load(\"/etc/shadow\")'",
  "yq -n 'load_str(\"/home/u/.aws/credentials\")'",
  "yq -n 'strenv(AWS_SECRET_ACCESS_KEY)'",
  "trap 'rm -rf ~/.cache' EXIT; ls",
  // The other clouds: verbs that write, and reads of credentials or configuration.
  "doctl compute droplet delete 123 -f",
  "doctl kubernetes cluster kubeconfig show prod",
  "heroku config -a app",
  "heroku config:get DATABASE_URL -a app",
  "netlify env:list",
  "vercel env ls",
  "flyctl deploy",
  "pulumi stack output --show-secrets",
  "kind delete cluster",
  "kind get kubeconfig",
  "minikube delete --all",
  // systemctl and crontab beyond their reads.
  "systemctl stop docker",
  "systemctl --user enable --now x.timer",
  "crontab -r",
  "crontab -e",
  "crontab list.txt",
  "launchctl load ~/Library/LaunchAgents/x.plist",
  "bazel build //../../other:x",
];

/** Allowed unconfined in a trusted project (and, but the project's builds, in one not trusted). */
const HARMLESS = [
  "systemctl status docker",
  "systemctl is-active nginx",
  "systemctl list-timers",
  "crontab -l",
  "launchctl list",
  "vault version",
  "doctl compute droplet list",
  "flyctl status -a app",
  "vercel ls",
  "netlify status",
  "wrangler whoami",
  "heroku ps -a app",
  "pulumi stack ls",
  "kind get clusters",
  "k3d cluster list",
  "minikube status",
  "npm dist-tag ls react",
  "npm owner ls react",
  "tea issues list",
  "glab mr list",
  "swift build",
  "dotnet test",
  "mvn -B clean verify",
  "gradle build",
  "bazel build //...",
  "bazel test //src/...",
  "buck2 build //app:main",
  "trap 'echo done' EXIT; ls",
  "echo '1+1' | bc",
  "csvlook sub/data.csv",
  "zipinfo sub/x.zip",
  "getfacl src/a.ts",
  "modinfo ext4",
  "apt-cache policy curl",
  "age -r age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p -o sub/x.age sub/x.txt",
  "sqlite3 app.db .tables",
  "timedatectl status",
  "mise ls",
  "pyenv versions",
  "skopeo inspect docker://alpine:3",
  "crane ls alpine",
  "goreleaser check",
  "buildah images",
];

describe("the own-unseen set's classes", () => {
  for (const command of ASKED) {
    it(`asks or denies ${command}, trusted or not`, () => {
      expect(decide(command, "open").decision, decide(command, "open").reason).not.toBe("allow");
      expect(decide(command, "trusted").decision, decide(command, "trusted").reason).not.toBe("allow");
    });
  }
  for (const command of HARMLESS) {
    it(`allows ${command} in a trusted project`, () => {
      expect(decide(command, "trusted").decision, decide(command, "trusted").reason).toBe("allow");
    });
  }
  it("reads a row's goals clause, names and prefixes", () => {
    const row = parseRow("runs-code:build | goals deploy,publish*=network:publisher");
    expect(row.goals.map((goal) => goal.name)).toEqual(["deploy", "publish*"]);
    expect(() => parseRow("runs-code:build | goals deploy")).toThrow(/NAMES=KIND/);
  });
  it("says why a publishing goal asks", () => {
    expect(decide("mvn clean deploy", "trusted").reason).toContain("mvn deploy");
  });
});
