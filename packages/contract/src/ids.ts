// ObjectId-style ids: 4-byte seconds timestamp, 5 random bytes fixed per process, 3-byte counter.
// Web Crypto (global in Node 20 and in browsers): the contract loads in the dashboard's bundle too.
const randomHex = (bytes: number) =>
  Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
const processRandom = randomHex(5);
let counter = parseInt(randomHex(3), 16);

export const OBJECT_ID_PATTERN = '^[0-9a-f]{24}$';
const objectIdRegex = new RegExp(OBJECT_ID_PATTERN);

export function newObjectId(now: Date = new Date()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now.getTime() / 1000)
    .toString(16)
    .padStart(8, '0');
  return seconds + processRandom + counter.toString(16).padStart(6, '0');
}

export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && objectIdRegex.test(value);
}
