// Issue 39, the classes own-unseen3 found: what prints a cluster's or a container's secrets
// (`kubectl config view --flatten`, `kubectl get secret/NAME -o …` or `--template`, `docker inspect`
// with the container's environment, `helm get values|all|manifest|hooks`), `config get` of a token
// (`gh config get oauth_token`, `glab config get token`, `yarn config get npmAuthToken`), archives
// whose names come from a list (`tar -T`, `zip -@`, `7z a x.7z @list`: the list may name
// ~/.ssh/id_rsa), environment dumps of the same tools (`docker compose config --environment`,
// `aws lambda get-function-configuration`, `aws ecs describe-task-definition`), and reads taken for
// writes or settings (`npm pack` runs the project's prepack scripts, `patch --dry-run` writes nothing, `aws configure list` shows masked settings).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideRecommendedBash, makeWorkspace } from "./_helpers.js";

let ws = "";
let cleanup = () => {};
beforeAll(() => {
  ({ ws, cleanup } = makeWorkspace());
});
afterAll(() => cleanup());

const decide = (command: string, trusted = false) => decideRecommendedBash(ws, command, trusted);

describe("never allowed unconfined", () => {
  for (const command of [
    "kubectl config view --flatten",
    "kubectl config view --flatten --minify",
    "oc config view --raw",
    "kubectl get secret/db --output=yaml",
    "kubectl get secret/db -ojson",
    "kubectl get secrets.v1 db -o yaml",
    "kubectl get configmaps,secrets -o yaml",
    "docker inspect web",
    "docker container inspect --format '{{.Config.Env}}' web",
    "podman inspect web",
    "helm get values rel --all -o json",
    "helm get all rel",
    "helm get manifest rel",
    "kubectl get secret db --template='{{.data.password}}'",
    "gh config get oauth_token -h github.com",
    "gh config get -h github.com oauth_token",
    "glab config get token",
    "yarn config get npmAuthToken",
    "tar -cf sub/x.tar -T sub/names.txt",
    "tar -czf sub/x.tgz --files-from=sub/names.txt",
    "printf '%s\\n' ~/.ssh/id_rsa | tar -cf sub/k.tar -T -",
    "zip sub/x.zip -@ < sub/names.txt",
    "7z a sub/x.7z @sub/names.txt",
    "7z a sub/x.7z -i@sub/names.txt",
    "docker compose config --environment",
    "aws lambda get-function-configuration --function-name f",
    "aws ecs describe-task-definition --task-definition t",
  ]) {
    it(command, () => {
      expect(decide(command).decision).not.toBe("allow");
      expect(decide(command, true).decision).not.toBe("allow");
    });
  }
});

describe("allowed: reads of the same tools", () => {
  for (const command of [
    "kubectl config view",
    "kubectl get secrets",
    "kubectl get secret db",
    "kubectl get configmap app -o yaml",
    "docker ps",
    "docker image inspect alpine:3",
    "helm status rel",
    "helm list -A",
    "aws configure list",
    "aws configure list-profiles",
    "patch -p1 --dry-run < sub/fix.diff",
    "gh config get editor",
    "glab config get host",
    "yarn config get registry",
    "tar czf sub/src.tgz src",
    "zip -r sub/src.zip src",
    "7z a sub/src.7z src",
    "aws ecs describe-services --cluster c --services s",
  ]) {
    it(command, () => expect(decide(command).decision).toBe("allow"));
  }
  it("npm, pnpm and yarn pack run the project's scripts: allowed only in a trusted project", () => {
    for (const command of ["npm pack", "pnpm pack", "yarn pack --out sub/p.tgz"]) {
      expect(decide(command).decision, command).not.toBe("allow");
      expect(decide(command, true).decision, command).toBe("allow");
    }
  });
  it("aws configure set still asks", () => expect(decide("aws configure set region eu-west-1").decision).not.toBe("allow"));
  it("patch without --dry-run still judges its writes", () => expect(decide("patch -p1 < sub/fix.diff").decision).not.toBe("allow"));
});
