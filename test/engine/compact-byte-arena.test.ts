/** ByteArena: UTF-8 strings in fixed-size chunks, addressed by offset; staging, hashing, sized strings. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteArena } from '../../electron/engine/compact/byte-arena.js';

test('ByteArena: appends and reads back; stageFrom, hashOf and stageAscii agree with the hash of the stored bytes', () => {
  const arena = new ByteArena();
  const off = arena.append('hello');
  arena.stage('ignored');
  const off2 = arena.append('world');
  assert.equal(arena.read(off, 5), 'hello');
  assert.equal(arena.read(off2, 5), 'world');

  // stageFrom copies ASCII text itself and hands other text to the encoder: either way its hash is
  // the one the table is rebuilt with (hashAt over the stored bytes), and the bytes are the UTF-8.
  for (const [text, from] of [
    ['https://a.example/x/item-1?q=2', 17],
    ['https://a.example/x/café-ü', 17],
    ['naïve', 0],
    ['abc€', 3],
    ['', 0],
    ['xy', 2],
  ] as const) {
    for (const seed of [0, 7]) {
      const h = arena.stageFrom(text, from, seed);
      const rest = text.slice(from);
      assert.equal(arena.stagedLength, Buffer.byteLength(rest), text);
      assert.equal(h, arena.hashAt(arena.stagedOffset, arena.stagedLength, seed), text);
      arena.commit();
      assert.equal(arena.read(arena.stagedOffset, arena.stagedLength), rest, text);
      arena.stage(rest);
      assert.equal(arena.hashStaged(seed), h, text);
      // hashOf: the same hash without staging, for ASCII text (-1 otherwise); stageAscii: its bytes.
      const ascii = !/[^\x00-\x7f]/.test(rest);
      assert.equal(arena.hashOf(text, from, seed), ascii ? h : -1, text);
      if (ascii) {
        arena.stageAscii(text, from);
        assert.equal(arena.stagedLength, rest.length, text);
        assert.equal(arena.hashStaged(seed), h, text);
        arena.commit();
        assert.equal(arena.read(arena.stagedOffset, arena.stagedLength), rest, text);
      }
    }
  }
});

test('ByteArena: strings across chunk ends and larger than a chunk read back exactly, with their offsets', () => {
  const CHUNK = 4 * 1024 * 1024;
  const arena = new ByteArena();
  const stored: [number, string][] = [];
  // ~2.5 chunks of 1,000-byte strings (a chunk end falls inside one: it starts the next chunk) ...
  for (let i = 0; i < 10_500; i++) {
    const s = `${i}:` + 'u'.repeat(997 - String(i).length) + (i % 3 === 0 ? 'é' : 'e');
    stored.push([arena.append(s), s]);
  }
  // ... one larger than a chunk (a chunk of its own), then small ones after it.
  const big = 'b'.repeat(CHUNK + 12_345);
  stored.push([arena.append(big), big]);
  for (let i = 0; i < 100; i++) stored.push([arena.append(`after-${i}`), `after-${i}`]);
  for (const [off, s] of stored) assert.equal(arena.read(off, Buffer.byteLength(s)), s, `at ${off}`);
  const offsets = stored.map(([off]) => off);
  for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i]! > offsets[i - 1]!, 'offsets grow with each append');
  assert.ok(new Set(offsets.map((o) => Math.floor(o / CHUNK))).size >= 4, 'the strings span several chunks');
  // 3 chunks of small strings, 4 for the big one (room for 3 UTF-8 bytes a character), 1 after it.
  assert.equal(arena.allocatedBytes(), 8 * CHUNK);
});

test('ByteArena: appendSized keeps its own length; stagedEquals compares the staged bytes with stored ones', () => {
  const arena = new ByteArena();
  const texts = ['', 'a', 'https://shop.example/p?q=1', 'naïve café ✓ 😀', 'x'.repeat(70_000)];
  const offs = texts.map((t) => arena.appendSized(t));
  texts.forEach((t, i) => assert.equal(arena.readSized(offs[i]!), t));
  const plain = arena.append('https://shop.example/a');
  const len = arena.stagedLength;
  arena.stage('https://shop.example/a');
  assert.equal(arena.stagedEquals(plain, len), true);
  arena.stage('https://shop.example/b');
  assert.equal(arena.stagedEquals(plain, len), false);
  arena.stage('https://shop.example/ab');
  assert.equal(arena.stagedEquals(plain, len), false, 'a longer string is not equal');
});
