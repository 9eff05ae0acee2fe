import { AgentHarness, ToolhostError } from "@toolhost/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import plugin, { createOpenAIStreamFn, type ModelService, ProviderErrorCode } from "../src/index.js";
import { type FakeOpenAI, startFakeOpenAI, textTurn } from "./_fake-openai.js";
import { collect, textOf, userContext } from "./_helpers.js";

let fake: FakeOpenAI | undefined;
beforeEach(() => {
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await fake?.close();
  fake = undefined;
});

async function rejection(promise: Promise<unknown>): Promise<ToolhostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolhostError);
  return error as ToolhostError;
}

describe("the plugin", () => {
  it("is the plugin of this package's name and version", async () => {
    const { readFile } = await import("node:fs/promises");
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    expect({ name: plugin.name, version: plugin.version }).toEqual({ name: pkg.name, version: pkg.version });
  });


  it("provides the model service, whose streamFn talks to the configured endpoint", async () => {
    fake = await startFakeOpenAI([textTurn("Hello through the harness.")]);
    const harness = new AgentHarness();
    await harness.use(plugin, { model: "qwen2.5-coder:7b", baseURL: fake.url, headers: { "X-Trace": "t1" } });

    const service = harness.getService<ModelService>("model");
    expect(service?.model).toEqual({ id: "qwen2.5-coder:7b", provider: "openai" });
    const events = [];
    for await (const event of await service!.streamFn(service!.model, userContext("hi"), {})) events.push(event);
    const done = events.at(-1);
    expect(done?.type === "done" && textOf(done.message)).toBe("Hello through the harness.");
    expect(fake.requests[0]!.body.model).toBe("qwen2.5-coder:7b");
    expect(fake.requests[0]!.headers["x-trace"]).toBe("t1");
  });

  it("starts without a key for api.openai.com; check() refuses, saying how to give one, and a stream ends with that error", async () => {
    const harness = new AgentHarness();
    await harness.use(plugin, { model: "gpt-4o-mini" });
    const service = harness.getService<ModelService>("model");
    expect(service?.model.id).toBe("gpt-4o-mini");
    let error: unknown;
    try {
      service?.check?.();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolhostError);
    expect((error as ToolhostError).code).toBe(ProviderErrorCode.NO_KEY);
    expect((error as ToolhostError).code).toBe("TOOLHOST_PROVIDER_NO_KEY");
    expect((error as ToolhostError).message).toContain("https://api.openai.com/v1");
    expect((error as ToolhostError).message).toContain("OPENAI_API_KEY");
    expect((error as ToolhostError).message).toContain("apiKey");
    const events = [];
    for await (const event of await service!.streamFn(service!.model, userContext("hi"), {})) events.push(event);
    expect(events).toHaveLength(1);
    const done = events[0];
    expect(done?.type === "done" && done.message.stopReason).toBe("error");
    expect(done?.type === "done" && done.message.errorMessage).toContain("OPENAI_API_KEY");
  });

  it("check() refuses when apiKeyEnv names an unset variable, even for a custom endpoint", async () => {
    const harness = new AgentHarness();
    await harness.use(plugin, { model: "m", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "TOOLHOST_TEST_UNSET_KEY" });
    const error = await rejection(Promise.resolve().then(() => harness.getService<ModelService>("model")?.check?.()));
    expect(error.code).toBe("TOOLHOST_PROVIDER_NO_KEY");
    expect(error.message).toContain("TOOLHOST_TEST_UNSET_KEY");
  });

  it("starts with a key from OPENAI_API_KEY for api.openai.com, without any request", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-present");
    const harness = new AgentHarness();
    await harness.use(plugin, { model: "gpt-4o-mini" });
    expect(harness.getService<ModelService>("model")?.model.id).toBe("gpt-4o-mini");
    expect(() => harness.getService<ModelService>("model")?.check?.()).not.toThrow();
  });

  it("refuses a baseURL that is not an http(s) URL", async () => {
    const harness = new AgentHarness();
    const error = await rejection(harness.use(plugin, { model: "m", baseURL: "localhost:11434" }));
    expect(error.code).toBe(ProviderErrorCode.BAD_BASE_URL);
    expect(error.message).toContain('"localhost:11434"');
    expect(error.message).toContain("http://127.0.0.1:11434/v1");
  });

  it("refuses unknown and invalid options through the host's validation", async () => {
    const harness = new AgentHarness();
    const unknown = await rejection(harness.use(plugin, { model: "m", baseURL: "http://127.0.0.1:9/v1", temprature: 1 }));
    expect(unknown.code).toBe("TOOLHOST_INVALID_PLUGIN_OPTIONS");
    const missing = await rejection(harness.use(plugin, { baseURL: "http://127.0.0.1:9/v1" }));
    expect(missing.code).toBe("TOOLHOST_INVALID_PLUGIN_OPTIONS");
    expect(missing.message).toContain("model");
  });
});

describe("createOpenAIStreamFn", () => {
  it("throws the missing-key error at once, not when streaming", () => {
    expect(() => createOpenAIStreamFn({})).toThrow(/no API key for https:\/\/api\.openai\.com\/v1/);
  });
});
