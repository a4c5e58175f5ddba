/**
 * An HTTP server on 127.0.0.1 for the loading tests: each request's path
 * (percent-decoded) goes to the test's handler, which sends a file from a
 * folder, bytes from memory, or something hostile of its own.
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  /** "http://127.0.0.1:PORT", no trailing slash. */
  base: string;
  /** Ends every connection (a response held open included) and stops listening. */
  close(): Promise<void>;
}

export async function serveLocally(respond: (path: string, response: ServerResponse) => void): Promise<LocalServer> {
  const server = createServer((request, response) => {
    const raw = new URL(request.url ?? '/', 'http://localhost').pathname;
    let path = raw;
    try {
      path = decodeURIComponent(raw);
    } catch {
      // Kept as sent: the handler finds no file by that name.
    }
    respond(path, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `bytes` with their length as a plain download, or a 404 where there are none. */
export function sendBytes(response: ServerResponse, bytes: Uint8Array | undefined): void {
  if (!bytes) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length }).end(bytes);
}

/** Sends the file at `path` (sendBytes), or a 404 where there is none. */
export function sendFile(response: ServerResponse, path: string): void {
  let bytes: Uint8Array | undefined;
  try {
    bytes = readFileSync(path);
  } catch {
    bytes = undefined;
  }
  sendBytes(response, bytes);
}
