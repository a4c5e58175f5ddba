/**
 * The level choice in a worker (src/app/world/world-choice-runner.ts,
 * world-choice-worker-core.ts), its two ends joined in this thread by a
 * port that delivers each message in a later task, as a worker's do: the
 * choices it takes are the thread's own choices for the same views and
 * files, one is asked at a time with only the newest view waiting, and a
 * worker that fails hands the choice to this thread. And the Node tools'
 * worker thread (world-choice-worker-node.ts, built as the tools build it),
 * which answers as this thread does and ends when closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeWorkerPort, startWorkerThread } from '../../src/io/node-worker-thread';
import { buildHarness, removeHarness } from '../support/build-harness';
import { InlineChoice, WorkerChoice, type ChoiceWorld } from '../../src/app/world/world-choice-runner';
import { lodOutline } from '../../src/io/lod/lod-outline';
import type { ChoiceWorkerPort } from '../../src/app/world/world-choice-port';
import { pathToFileURL } from 'node:url';
import { serveChoice, type ChoiceWorkerRequest, type ChoiceWorkerResponse } from '../../src/app/world/world-choice-worker-core';
import type { LodChoice, LodChoiceOptions } from '../../src/app/world/world-lod';
import type { LodIndex } from '../../src/io/lod/lod-meta';
import { random } from '../support/up-scenes';
import { lodMetaText, randomView, randomWorld } from '../support/random-world';

/** A world as a worker's choice takes it: the outline this thread keeps, and the text the worker reads where given. */
const choiceWorld = (index: LodIndex, indexText?: string): ChoiceWorld => ({ index, outline: lodOutline(index), indexText });

/** A worker's two ends in this thread; each message arrives in a task of its own (structured-cloned, its transfer list moved, as postMessage does). */
function loopbackWorker(): { port: ChoiceWorkerPort; asked: ChoiceWorkerRequest[]; fail(): void } {
  const asked: ChoiceWorkerRequest[] = [];
  let ended = false;
  const scope = {
    onmessage: null as ((event: { data: ChoiceWorkerRequest }) => void) | null,
    postMessage: (message: ChoiceWorkerResponse, transfer: Transferable[] = []) => {
      const copy = structuredClone(message, { transfer });
      setTimeout(() => !ended && port.onmessage?.({ data: copy }));
    },
  };
  serveChoice(scope);
  const port: ChoiceWorkerPort = {
    onmessage: null,
    onerror: null,
    postMessage: (request, transfer = []) => {
      asked.push(structuredClone(request));
      const copy = structuredClone(request, { transfer });
      setTimeout(() => !ended && scope.onmessage?.({ data: copy }));
    },
    terminate: () => {
      ended = true;
    },
  };
  return { port, asked, fail: () => port.onerror?.({ message: 'could not start', preventDefault: () => {} }) };
}

/** What a choice says, its lists copied (the runs by number: the two threads number them alike). */
function plain(choice: LodChoice) {
  const { draw, wanted, fetch, drawnSplats, wantedSplats, thresholdPx, leftOut } = choice;
  return { draw: [...draw], wanted: [...wanted], fetch: [...fetch], drawnSplats, wantedSplats, thresholdPx, leftOut };
}

/** Tasks pass until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve));
  expect(done()).toBe(true);
}

function optionsOf(index: LodIndex, rand: () => number): LodChoiceOptions {
  const files = index.filenames.length;
  const resident = Array.from({ length: files }, () => rand() < 0.6);
  const failed = Array.from({ length: files }, () => rand() < 0.1);
  return { thresholdPx: 0.5 + rand() * 4, budget: 1000 + Math.floor(rand() * 40000), budgetPolicy: rand() < 0.5 ? 'threshold' : 'benefit', resident: (f) => resident[f]!, failed: (f) => failed[f]! };
}

/** Asks both of `frames` random views and files, one after the other, and expects the worker's choice to be this thread's. */
async function expectThreadsChoices(inWorker: WorkerChoice, index: LodIndex, rand: () => number, frames: number): Promise<void> {
  const inThread = new InlineChoice(index);
  let ready = 0;
  inWorker.onReady = () => ready++;
  for (let frame = 0; frame < frames; frame++) {
    const view = randomView(rand);
    const options = optionsOf(index, rand);
    inWorker.ask(view, options);
    inThread.ask(view, options);
    await until(() => ready === frame + 1);
    expect(plain(inWorker.take()!)).toEqual(plain(inThread.take()!));
  }
}

describe('the level choice in a worker', () => {
  it("takes the thread's own choice for each view and files, a task later", async () => {
    const rand = random(45);
    for (let world = 0; world < 20; world++) {
      const index = randomWorld(rand, world % 2 === 0);
      const { port } = loopbackWorker();
      const inWorker = new WorkerChoice(choiceWorld(index), port);
      const inThread = new InlineChoice(index);
      expect(inWorker.leaves).toBe(inThread.leaves);
      let ready = 0;
      inWorker.onReady = () => ready++;
      for (let frame = 0; frame < 5; frame++) {
        const view = randomView(rand);
        const options = optionsOf(index, rand);
        inWorker.ask(view, options);
        inThread.ask(view, options);
        expect(inWorker.take()).toBeNull();
        expect(inWorker.busy).toBe(true);
        await until(() => ready === frame + 1);
        expect(inWorker.busy).toBe(true);
        expect(plain(inWorker.take()!)).toEqual(plain(inThread.take()!));
        expect(inWorker.busy).toBe(false);
        expect(inWorker.take()).toBeNull();
      }
      inWorker.close();
    }
  });

  it("reads the index's text in the worker, where it is given, and takes the same choices: the text is sent, not the index's objects", async () => {
    const rand = random(46);
    for (let world = 0; world < 10; world++) {
      const index = randomWorld(rand, world % 2 === 0);
      const { port, asked } = loopbackWorker();
      const inWorker = new WorkerChoice(choiceWorld(index, lodMetaText(index)), port);
      expect(asked[0]).toEqual({ type: 'open', text: lodMetaText(index) });
      await expectThreadsChoices(inWorker, index, rand, 3);
      // Every choice made in the worker: one it could not make would have moved the rest to this thread.
      expect(asked.filter((r) => r.type === 'choose')).toHaveLength(3);
      inWorker.close();
    }
  });

  it('asks one choice at a time, the newest view waiting, and the files as they are when it is sent', async () => {
    const rand = random(7);
    const index = randomWorld(rand, true);
    const { port, asked } = loopbackWorker();
    const inWorker = new WorkerChoice(choiceWorld(index), port);
    const views = [randomView(rand), randomView(rand), randomView(rand)];
    let resident = false;
    const options: LodChoiceOptions = { thresholdPx: 1, budget: 1e9, resident: () => resident };
    for (const view of views) inWorker.ask(view, options);
    // The first view is sent at once; the second is replaced by the third before the answer comes.
    expect(asked.filter((r) => r.type === 'choose')).toHaveLength(1);
    resident = true;
    let ready = 0;
    inWorker.onReady = () => ready++;
    await until(() => ready === 2);
    const sent = asked.filter((r): r is Extract<ChoiceWorkerRequest, { type: 'choose' }> => r.type === 'choose');
    expect(sent.map((r) => [...r.view.planes])).toEqual([[...views[0]!.planes], [...views[2]!.planes]]);
    expect([...sent[0]!.files].every((state) => state === 0)).toBe(true);
    expect([...sent[1]!.files].every((state) => state === 1)).toBe(true);
    // The newest answer is taken: the third view's, with every file resident.
    const inThread = new InlineChoice(index);
    inThread.ask(views[2]!, options);
    expect(plain(inWorker.take()!)).toEqual(plain(inThread.take()!));
    expect(inWorker.busy).toBe(false);
  });

  it('chooses in this thread once the worker fails, the last view asked for first', async () => {
    const rand = random(3);
    const index = randomWorld(rand, true);
    const { port, fail } = loopbackWorker();
    const inWorker = new WorkerChoice(choiceWorld(index), port);
    const view = randomView(rand);
    const options: LodChoiceOptions = { thresholdPx: 1, budget: 1e9, resident: () => true };
    inWorker.ask(view, options);
    fail();
    const inThread = new InlineChoice(index);
    inThread.ask(view, options);
    expect(plain(inWorker.take()!)).toEqual(plain(inThread.take()!));
    // From now on at once.
    const next = randomView(rand);
    inWorker.ask(next, options);
    inThread.ask(next, options);
    expect(plain(inWorker.take()!)).toEqual(plain(inThread.take()!));
  });

  it('sends the files one buffer, handed back with each answer, so that a choice sent copies none', async () => {
    const rand = random(11);
    const index = randomWorld(rand, true);
    const { port } = loopbackWorker();
    const sent: Uint8Array[] = [];
    const send = port.postMessage;
    port.postMessage = (request, transfer) => {
      if (request.type === 'choose') sent.push(request.files);
      send(request, transfer);
    };
    const inWorker = new WorkerChoice(choiceWorld(index), port);
    const returned: (Uint8Array | undefined)[] = [];
    const returnedLengths: (number | undefined)[] = [];
    const answered = port.onmessage!;
    port.onmessage = (event) => {
      returned.push(event.data.files);
      returnedLengths.push(event.data.files?.length);
      answered(event);
    };
    let ready = 0;
    inWorker.onReady = () => ready++;
    for (let frame = 0; frame < 3; frame++) {
      inWorker.ask(randomView(rand), optionsOf(index, rand));
      // Moved to the worker, not copied.
      expect(sent[frame]!.byteLength).toBe(0);
      await until(() => ready === frame + 1);
      expect(inWorker.take()).not.toBeNull();
    }
    expect(returnedLengths).toEqual([1, 2, 3].map(() => index.filenames.length));
    expect(sent[1]).toBe(returned[0]);
    expect(sent[2]).toBe(returned[1]);
  });

  it('throws at the next take what the choice made in this thread threw when the worker failed, once', () => {
    const rand = random(5);
    const index = randomWorld(rand, true);
    const { port, fail } = loopbackWorker();
    const inWorker = new WorkerChoice(choiceWorld(index), port);
    let broken = false;
    const options: LodChoiceOptions = {
      thresholdPx: 1,
      budget: 1e9,
      resident: () => {
        if (broken) throw new Error('the files cannot be read');
        return true;
      },
    };
    inWorker.ask(randomView(rand), options);
    broken = true;
    fail();
    // The camera is still: nothing asks again, so the frame's take is where it is said.
    expect(() => inWorker.take()).toThrow('the files cannot be read');
    expect(inWorker.take()).toBeNull();
  });

  it('answers a choice asked before the index with an error, which hands the choice to the thread', async () => {
    const answers: ChoiceWorkerResponse[] = [];
    const scope = { onmessage: null as ((event: { data: ChoiceWorkerRequest }) => void) | null, postMessage: (m: ChoiceWorkerResponse) => void answers.push(m) };
    serveChoice(scope);
    scope.onmessage!({ data: { type: 'choose', view: randomView(random(1)), options: { thresholdPx: 1, budget: 1 }, files: new Uint8Array(1) } });
    expect(answers).toEqual([{ type: 'error', message: "the world's choice was asked for before its index was sent", files: new Uint8Array(1) }]);
  });

  it("answers each choice with why the index's text could not be read, where it could not", () => {
    const answers: ChoiceWorkerResponse[] = [];
    const scope = { onmessage: null as ((event: { data: ChoiceWorkerRequest }) => void) | null, postMessage: (m: ChoiceWorkerResponse) => void answers.push(m) };
    serveChoice(scope);
    scope.onmessage!({ data: { type: 'open', text: '{"lodLevels": 1' } });
    scope.onmessage!({ data: { type: 'choose', view: randomView(random(1)), options: { thresholdPx: 1, budget: 1 }, files: new Uint8Array(1) } });
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ type: 'error', message: expect.stringMatching(/^the world's index could not be read: lod-meta\.json: not JSON/) });
  });
});

describe("the Node tools' choice thread", () => {
  let script = '';
  beforeAll(async () => {
    script = await buildHarness('src/app/world/world-choice-worker-node.ts');
  }, 120_000);
  afterAll(() => removeHarness(script));

  it("takes the thread's own choice for each view and files, its files' buffer moved between the threads, opened from the index's objects or its text", async () => {
    const rand = random(29);
    for (let world = 0; world < 4; world++) {
      const index = randomWorld(rand, world % 2 === 0);
      const port = nodeWorkerPort<ChoiceWorkerRequest, ChoiceWorkerResponse>(startWorkerThread(pathToFileURL(script)), { type: 'close' });
      // The tools' worlds give the text (world-worker-client.ts): half the worlds so, half from the objects.
      const inWorker = new WorkerChoice(choiceWorld(index, world % 2 === 0 ? lodMetaText(index) : undefined), port);
      await expectThreadsChoices(inWorker, index, rand, 3);
      inWorker.close();
    }
  });

  it('ends its thread when closed, with nothing asked or in the middle of a choice', async () => {
    for (const asking of [false, true]) {
      const { index, ended } = await closedThread(asking);
      expect(ended, `asking: ${asking}`).toBe(0);
      expect(index).toBeGreaterThan(0);
    }
  });

  /** A thread of the script closed (after a choice was asked, or not): its exit code and the leaves of the world it was given. */
  async function closedThread(asking: boolean): Promise<{ index: number; ended: number }> {
    const rand = random(asking ? 5 : 6);
    const index = randomWorld(rand, true);
    const worker = startWorkerThread(pathToFileURL(script));
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    const port = nodeWorkerPort<ChoiceWorkerRequest, ChoiceWorkerResponse>(worker, { type: 'close' });
    const choice = new WorkerChoice(choiceWorld(index), port);
    if (asking) choice.ask(randomView(rand), optionsOf(index, rand));
    choice.close();
    return { index: choice.leaves, ended: await exited };
  }
});
