import { type Socket, connect, isIP } from "node:net";
import { messageOf } from "@toolhost/core";
import type { ConnectionJudge, Destination } from "./_judge.js";

/** Finds the call a connection belongs to by the credentials it carries. */
export type CallOf = (token: string) => ConnectionJudge | undefined;

/** What the policy judges for a tunnel to host:port: its TLS is not opened, so only the host and port are known. */
export function tunnelUrl(host: string, port: number): string {
  const name = isIP(host) === 6 ? `[${host}]` : host;
  if (port === 80) return `http://${name}/`;
  return port === 443 ? `https://${name}/` : `https://${name}:${port}/`;
}

export function hostPort(destination: Destination): string {
  return `${isIP(destination.host) === 6 ? `[${destination.host}]` : destination.host}:${destination.port}`;
}

/** Connects to the destination from this machine: the socket, or why it failed. */
export function open(destination: Destination, judge: ConnectionJudge): Promise<Socket | string> {
  return new Promise((resolve) => {
    const upstream = connect({ host: destination.host, port: destination.port });
    judge.track(upstream);
    upstream.once("connect", () => resolve(upstream));
    upstream.once("error", (error) => resolve(messageOf(error)));
  });
}

/** Pipes both ways (with backpressure) until either side ends; `early` is what the client sent after its handshake. */
export function join(client: Socket, early: Buffer, upstream: Socket): void {
  client.setTimeout(0);
  upstream.on("error", () => {});
  if (early.length > 0) upstream.write(early);
  client.pipe(upstream);
  upstream.pipe(client);
  client.once("close", () => upstream.destroy());
  upstream.once("close", () => client.destroy());
  client.resume();
}

