// Issue 39, the classes own-unseen left asked: a toolchain's information options alone, the
// subcommands and tasks of mix, dart, flutter, pdm and hatch, the build tools' wrapper scripts,
// and the media, document and data tools whose arguments read, write or run (judge/_documents.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideRecommendedBash, makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterAll(() => cleanup());

const decide = (command: string, trusted: boolean) => decideRecommendedBash(ws, command, trusted);

/** Never allowed unconfined, trusted or not. */
const ASKED = [
  "php -i",
  "php -- -v",
  "mix do deps.get, compile",
  "mix hex.publish --yes",
  "mix run -e 'System.cmd(\"id\", [])'",
  "dart pub publish --force",
  "flutter config --enable-web",
  "./mvnw deploy",
  "./gradlew clean build publish",
  "pulumi preview --show-secrets",
  "ansible-playbook -i prod site.yml",
  "xq -n env",
  "mlr -n put 'end { print system(\"id\") }'",
  "mlr --prepipe 'sh -c id' cat sub/x.csv",
  "sqlite-utils convert app.db t c 'value.upper()'",
  "sqlite-utils query app.db \"attach '/tmp/x.db' as x\"",
  "gron https://example.com/x.json",
  "ffmpeg -i http://example.com/x.m3u8 sub/out.mp4",
  "ffmpeg -f x11grab -i :0 sub/screen.mp4",
  "ffmpeg -i sub/in.mp4 -vf 'movie=/etc/shadow' sub/out.mp4",
  "convert text:/etc/shadow sub/x.png",
  "magick sub/a.png 'png:|sh -c id'",
  "convert @sub/list.txt sub/out.gif",
  "pandoc --lua-filter=sub/x.lua README.md",
  "pandoc -t sub/writer.lua README.md",
  "pdflatex -shell-escape main.tex",
  "xelatex '\\input{/etc/shadow}'",
  "kpsewhich -var-value=HOME",
  "gh run download 123",
  "pip download evilpkg -d sub/wheels",
  "dc -e '!id'",
  "dc sub/prog.dc",
  "rclone config show",
];

/** Allowed unconfined in a trusted project. */
const HARMLESS = [
  "dotnet --info",
  "dotnet --list-sdks",
  "php -v",
  "brew --prefix",
  "mix test",
  "dart analyze",
  "flutter test",
  "pdm list",
  "hatch run pytest",
  "./gradlew build",
  "pulumi preview",
  "ansible-playbook --syntax-check site.yml",
  "xq . sub/a.xml",
  "mlr --icsv --opprint cat sub/data.csv",
  "sqlite-utils tables app.db",
  "gron package.json",
  "dasel -f sub/x.yaml '.a'",
  "ffmpeg -i sub/in.mp4 -vf scale=640:-1 sub/out.mp4",
  "convert sub/a.png sub/a.jpg",
  "mogrify -format webp sub/a.png",
  "pandoc README.md -o sub/readme.html",
  "pdflatex -interaction=nonstopmode main.tex",
  "openssl req -new -x509 -nodes -keyout sub/key.pem -out sub/cert.pem -subj /CN=localhost -days 1",
  "gh release download v1.0.0 -D sub",
  "pip download --no-deps --only-binary=:all: requests -d sub/wheels",
  "rclone lsd remote:",
  "dc -e '2 3 + p'",
];

describe("the classes own-unseen left asked", () => {
  for (const command of ASKED) {
    it(`asks or denies ${command}, trusted or not`, () => {
      for (const trusted of [false, true]) expect(decide(command, trusted).decision, decide(command, trusted).reason).not.toBe("allow");
    });
  }
  for (const command of HARMLESS) {
    it(`allows ${command} in a trusted project`, () => {
      expect(decide(command, true).decision, decide(command, true).reason).toBe("allow");
    });
  }
  it("says why: the wrapper is judged by the tool's row, the coder reads, the download lands in the root", () => {
    expect(decide("./mvnw deploy", true).reason).toContain("wrapper of mvnw");
    expect(decide("convert text:/etc/shadow sub/x.png", true).reason).toContain("coder text:");
    expect(decide("gh run download 123", true).reason).toContain("give it -D with a folder");
  });
  it("a wrapper outside the workspace is not the project's", () => {
    expect(decide("/tmp/mvnw verify", true).decision).not.toBe("allow");
  });
});
