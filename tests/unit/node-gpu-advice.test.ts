/**
 * What Node says when it finds no GPU adapter (src/gpu/node-gpu-advice.ts):
 * the one setting that fixes it on a machine without a GPU, or what is
 * wrong with the one the process was given.
 */
import { expect, test } from 'vitest';
import { noAdapterAdvice, SWIFTSHADER_ICD } from '../../src/gpu/node-gpu-advice';

const only = (...paths: string[]) => (path: string) => paths.includes(path);

test('without VK_ICD_FILENAMES it names the SwiftShader setting, or how to get SwiftShader', () => {
  expect(noAdapterAdvice({ icdFilenames: undefined, exists: only(SWIFTSHADER_ICD) })).toMatch(new RegExp(`run with SwiftShader's: VK_ICD_FILENAMES=${SWIFTSHADER_ICD}$`));
  expect(noAdapterAdvice({ icdFilenames: '', exists: only() })).toMatch(/install Debian's chromium package \(apt install chromium libvulkan1\) and run with VK_ICD_FILENAMES=/);
});

test('a driver named but not there is named; one that is there but gave no adapter is too', () => {
  expect(noAdapterAdvice({ icdFilenames: '/nowhere/icd.json', exists: only(SWIFTSHADER_ICD) })).toMatch(/VK_ICD_FILENAMES names \/nowhere\/icd\.json, which is not there$/);
  expect(noAdapterAdvice({ icdFilenames: `/a.json:${SWIFTSHADER_ICD}`, exists: only(SWIFTSHADER_ICD) })).toMatch(/names \/a\.json, which is not there$/);
  expect(noAdapterAdvice({ icdFilenames: SWIFTSHADER_ICD, exists: only(SWIFTSHADER_ICD) })).toMatch(/gave none: check that it is a Vulkan driver/);
});
