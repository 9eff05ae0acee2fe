import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIStreamFn } from "../src/index.js";
import { type FakeOpenAI, startFakeOpenAI, textTurn } from "./_fake-openai.js";
import { collect, textOf, userContext } from "./_helpers.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("HTTP errors", () => {
  it("a 500 with maxRetries 0 is one request and an error message with status, body and URL", async () => {
    fake = await startFakeOpenAI([{ status: 500, body: { error: { message: "The engine is overloaded", type: "server_error" } } }]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 0 });
    const { events, message } = await collect(streamFn, userContext("?"));

    expect(events).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([]);
    expect(message.errorMessage).toBe(
      `HTTP 500 from the model endpoint ${fake.url}/chat/completions: The engine is overloaded. The server failed: try again later, or check its logs.`,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("retries a 500 maxRetries times, then succeeds when the endpoint recovers", async () => {
    fake = await startFakeOpenAI([{ status: 500 }, { status: 503 }, textTurn("Back again.")]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 2 });
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("stop");
    expect(textOf(message)).toBe("Back again.");
    expect(fake.requests).toHaveLength(3);
    expect(message.retries).toBe(2);
  });

  it("gives up after maxRetries retries, saying how many attempts were made", async () => {
    fake = await startFakeOpenAI([{ status: 502 }, { status: 502 }, { status: 502, body: "Bad gateway from the proxy" }, textTurn("too late")]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 2 });
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^HTTP 502 from the model endpoint .* \(after 3 attempts\): Bad gateway from the proxy\./);
    expect(fake.requests).toHaveLength(3);
  });

  it("does not retry a 400, and shows the endpoint's own words", async () => {
    fake = await startFakeOpenAI([
      { status: 400, body: { error: { message: "Invalid schema for function 'read': 'path' is required", type: "invalid_request_error" } } },
      textTurn("unused"),
    ]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 2 });
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.errorMessage).toContain("HTTP 400");
    expect(message.errorMessage).toContain("Invalid schema for function 'read': 'path' is required");
    expect(fake.requests).toHaveLength(1);
  });

  it("says to check the key on a 401, and the model and baseURL on a 404", async () => {
    fake = await startFakeOpenAI([
      { status: 401, body: { error: { message: "Incorrect API key provided" } } },
      { status: 404, body: { error: { message: "model 'nope' not found" } } },
    ]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, apiKey: "wrong", maxRetries: 0 });
    const first = await collect(streamFn, userContext("?"));
    expect(first.message.errorMessage).toMatch(/HTTP 401 .*Incorrect API key provided\. Check the API key/);
    const second = await collect(streamFn, userContext("?"));
    expect(second.message.errorMessage).toMatch(/HTTP 404 .*model 'nope' not found\. Check baseURL .* "fake-model"/);
  });

  it("cuts a long error body to an excerpt", async () => {
    fake = await startFakeOpenAI([{ status: 400, body: "x".repeat(5000) }]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 0 });
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.errorMessage).toContain("… (5000 characters)");
    expect(message.errorMessage!.length).toBeLessThan(800);
  });
});

describe("network errors", () => {
  it("says the endpoint cannot be reached when nothing listens there", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const streamFn = createOpenAIStreamFn({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(`Could not reach the model endpoint http://127.0.0.1:${port}/v1/chat/completions`);
    expect(message.errorMessage).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(message.errorMessage).toContain("Check baseURL");
    expect(message.errorMessage).not.toMatch(/[.:]: /);
  });

  it("times out when the endpoint does not start answering within timeoutMs", async () => {
    fake = await startFakeOpenAI([{ noAnswer: true }]);
    const streamFn = createOpenAIStreamFn({ baseURL: fake.url, maxRetries: 0, timeoutMs: 200 });
    const { message } = await collect(streamFn, userContext("?"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^Timed out: the model endpoint .* did not start answering within 200 ms\./);
    await fake.requests[0]!.closed;
    expect(fake.requests[0]!.closedEarly).toBe(true);
  });
});
