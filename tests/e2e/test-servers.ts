/**
 * The hostile and slow servers of the loading tests: files sent a little
 * at a time (SlowServer, which records how much it sent and whether the
 * browser hung up), and a .splat that never ends, with no length.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splatFile } from '../support/splat-files';

/** Sent at once, then TRICKLE_BYTES every TRICKLE_MS until released (80 KB/s). */
const FIRST_BYTES = 64 * 1024;
const TRICKLE_BYTES = 16 * 1024;
const TRICKLE_MS = 200;

/** One response of the slow server, as the server saw it. */
export interface Delivery {
  sent: number;
  /** Bytes sent when the test released the rest. */
  sentAtRelease: number | undefined;
  /** The whole body went out. */
  finished: boolean;
  /** The browser closed the connection before the body was complete (an aborted download). */
  abandoned: boolean;
}

/**
 * Serves files slowly: each response sends FIRST_BYTES, then trickles until
 * release(), then sends the rest as fast as the socket takes it.
 */
export class SlowServer {
  readonly deliveries = new Map<string, Delivery>();
  private readonly files = new Map<string, Uint8Array>();
  private released = false;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const body = this.files.get(path);
      if (!body) {
        response.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end();
        return;
      }
      response.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(body.length),
        'Access-Control-Allow-Origin': '*',
        'Cache-Control': 'no-store',
      });
      const delivery: Delivery = { sent: 0, sentAtRelease: undefined, finished: false, abandoned: false };
      this.deliveries.set(path, delivery);
      response.on('close', () => {
        delivery.abandoned = !delivery.finished;
      });
      void this.send(body, response, delivery);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  serve(path: string, body: Uint8Array): string {
    this.files.set(path, body);
    return `${this.url}${path}`;
  }

  release(): void {
    this.released = true;
    for (const delivery of this.deliveries.values()) delivery.sentAtRelease ??= delivery.sent;
  }

  /** Back to trickling, for the next test. */
  hold(): void {
    this.released = false;
    this.deliveries.clear();
  }

  private async send(body: Uint8Array, response: ServerResponse, delivery: Delivery): Promise<void> {
    while (delivery.sent < body.length && !response.destroyed) {
      const size = delivery.sent === 0 ? FIRST_BYTES : this.released ? 256 * 1024 : TRICKLE_BYTES;
      const chunk = body.subarray(delivery.sent, Math.min(body.length, delivery.sent + size));
      delivery.sent += chunk.length;
      const drained = response.write(chunk);
      if (this.released) {
        if (!drained) await drainedOrClosed(response);
      } else {
        await new Promise((resolve) => setTimeout(resolve, TRICKLE_MS));
      }
    }
    if (delivery.sent >= body.length && !response.destroyed) {
      delivery.finished = true;
      response.end();
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** What the endless server saw of one response. */
export interface EndlessDelivery {
  sent: number;
  /** The browser closed the connection (the load stopped the download). */
  hungUp: boolean;
}

/** ENDLESS_CHUNK bytes every ENDLESS_MS (6.4 MB/s): long enough a load for the page to draw a few previews, short enough for a quick test. */
const ENDLESS_CHUNK = 64 * 1024;
const ENDLESS_MS = 10;

/** Serves `/endless.splat`: .splat records for ever, with no Content-Length; `deliveries` has one entry per request, newest last. */
export async function serveEndless(): Promise<{ url: string; deliveries: EndlessDelivery[]; close: () => Promise<void> }> {
  const records = splatFile(ENDLESS_CHUNK / 32);
  const deliveries: EndlessDelivery[] = [];
  const server = createServer((_request, response) => {
    const delivery: EndlessDelivery = { sent: 0, hungUp: false };
    deliveries.push(delivery);
    response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    response.on('close', () => {
      delivery.hungUp = true;
    });
    void (async () => {
      while (!response.destroyed) {
        delivery.sent += records.length;
        if (!response.write(records)) await drainedOrClosed(response);
        await new Promise((resolve) => setTimeout(resolve, ENDLESS_MS));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/endless.splat`,
    deliveries,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves when `response` can take more, or has closed (its listeners removed either way). */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      response.off('drain', go).off('close', go);
      resolve();
    };
    response.on('drain', go).on('close', go);
  });
}
