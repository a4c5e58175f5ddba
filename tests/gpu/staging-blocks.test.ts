/**
 * Writes through staging blocks (src/gpu/staging-blocks.ts) on Dawn over
 * SwiftShader: what is written lands where it was aimed, read back from
 * the GPU, whichever block carried it; no more blocks are made than
 * allowed, and a write past them waits until the GPU gives one back
 * (which then carries it, mapped afresh); a block too small refuses, and
 * closing refuses whoever waits. Batched, the blocks submitted go to the
 * GPU together, in one submit, at a flush or in a task of their own where
 * none comes; a write that finds every block out gets one back.
 */
import { describe, expect, test } from 'vitest';
import { StagingBlocks } from '../../src/gpu/staging-blocks';
import { readBufferU32 } from '../../src/gpu/readback';
import { useGpu } from '../support/gpu-fixture';
import { rng } from '../support/splat-files';

const gpu = useGpu('staging-blocks.test');

function target(words: number): GPUBuffer {
  return gpu.own(gpu.device.createBuffer({ label: 'staging-blocks.target', size: words * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC }));
}

function randomWords(n: number, seed: number): Uint32Array<ArrayBuffer> {
  const next = rng(seed);
  return Uint32Array.from({ length: n }, () => Math.floor(next() * 2 ** 32));
}

describe('staging blocks', () => {
  test('every write lands where it was aimed, from any offset of its data, through blocks taken again and again', async () => {
    const device = gpu.device;
    const blocks = new StagingBlocks(device, 1024, 2, 'test.staging');
    const words = 4096;
    const into = target(words);
    const data = randomWords(words, 7);
    const floats = new Float32Array(data.buffer);
    const expected = new Uint32Array(words);
    // 40 writes of 1-64 words from random places of the data to random places of the buffer, up to 256 words a block.
    const next = rng(11);
    for (let b = 0; b < 10; b++) {
      const block = await blocks.block();
      for (let w = 0; w < 4; w++) {
        const count = 1 + Math.floor(next() * 64);
        const from = Math.floor(next() * (words - count));
        const at = Math.floor(next() * (words - count));
        // Floats and words alike: the bytes are copied as they are.
        if (w % 2 === 0) block.write(into, at * 4, data, from, count);
        else block.write(into, at * 4, floats, from, count);
        expected.set(data.subarray(from, from + count), at);
      }
      block.submit();
    }
    expect(blocks.made).toBe(2);
    expect(Array.from(await readBufferU32(device, into, words))).toEqual(Array.from(expected));
    blocks.close();
  });

  test('past the blocks allowed, the next write waits until the GPU gives one back, and that block carries it', async () => {
    const device = gpu.device;
    const blocks = new StagingBlocks(device, 64, 1, 'test.staging');
    const into = target(32);
    const first = await blocks.block();
    first.write(into, 0, randomWords(16, 1), 0, 16);
    let taken = false;
    const second = blocks.block().then((b) => ((taken = true), b));
    await new Promise((r) => setTimeout(r, 0));
    expect(taken, 'no block while the only one is taken').toBe(false);
    first.submit();
    const again = await second;
    expect(again).toBe(first);
    expect(again.room).toBe(64);
    const words = randomWords(16, 2);
    again.write(into, 64, words, 0, 16);
    again.submit();
    expect(Array.from((await readBufferU32(device, into, 32)).subarray(16))).toEqual(Array.from(words));
    expect(blocks.made).toBe(1);
    blocks.close();
  });

  test('a block refuses a write past its room, and anything once submitted; a block with nothing written comes back at once', async () => {
    const blocks = new StagingBlocks(gpu.device, 64, 1, 'test.staging');
    const into = target(32);
    const block = await blocks.block();
    block.write(into, 0, randomWords(10, 3), 0, 10);
    expect(() => block.write(into, 40, randomWords(10, 4), 0, 10)).toThrow('StagingBlock: 40 bytes do not fit the 24 left of 64');
    expect(block.room).toBe(24);
    block.submit();
    // Sent once: a second submit, or a write after it, is refused (it would give the block back twice).
    expect(() => block.submit()).toThrow('the block was submitted already');
    expect(() => block.write(into, 0, randomWords(1, 5), 0, 1)).toThrow('the block was submitted');
    const back = await blocks.block();
    back.submit();
    expect(await blocks.block()).toBe(back);
    blocks.close();
  });

  test('closing refuses whoever waits for a block, and every block after', async () => {
    const blocks = new StagingBlocks(gpu.device, 64, 1, 'test.staging');
    await blocks.block();
    const waiting = blocks.block();
    blocks.close(new Error('closed for the test'));
    await expect(waiting).rejects.toThrow('closed for the test');
    await expect(blocks.block()).rejects.toThrow('closed for the test');
  });

  test('batched: blocks submitted go together at a flush, in one submit; a task sends them where no flush comes; a write that finds every block out gets one back', async () => {
    let submits = 0;
    const queue = new Proxy(gpu.device.queue, {
      get: (target, key) => {
        if (key === 'submit') return (buffers: GPUCommandBuffer[]) => (submits++, target.submit(buffers));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const device = new Proxy(gpu.device, {
      get: (target, key) => {
        if (key === 'queue') return queue;
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const blocks = new StagingBlocks(device, 64, 3, 'test.staging', true);
    const into = target(48);
    const expected = new Uint32Array(48);
    const writeBlock = async (at: number, seed: number) => {
      const block = await blocks.block();
      const words = randomWords(16, seed);
      block.write(into, at * 4, words, 0, 16);
      expected.set(words, at);
      block.submit();
    };
    await writeBlock(0, 21);
    await writeBlock(16, 22);
    expect(submits, 'nothing sent before the flush').toBe(0);
    blocks.flush();
    expect(submits, 'both blocks in one submit').toBe(1);
    expect(Array.from(await readBufferU32(gpu.device, into, 48))).toEqual(Array.from(expected));
    // No flush: the task queued with the first block sends it.
    await writeBlock(32, 23);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(submits).toBe(2);
    expect(Array.from(await readBufferU32(gpu.device, into, 48))).toEqual(Array.from(expected));
    // Every block out and submitted, none sent yet: the next write gets one back once they are sent.
    for (const [at, seed] of [[0, 24], [16, 25], [32, 26], [0, 27]] as const) await writeBlock(at, seed);
    blocks.flush();
    expect(Array.from(await readBufferU32(gpu.device, into, 48))).toEqual(Array.from(expected));
    blocks.close();
  });

  test('a block must hold whole words, and there must be one', () => {
    expect(() => new StagingBlocks(gpu.device, 6, 1)).toThrow('a positive multiple of 4, got 6');
    expect(() => new StagingBlocks(gpu.device, 64, 0)).toThrow('at least one block, got 0');
  });
});
