/** The fixture scanner (src/core/import/json-scanner.ts) gives the entries of the parsed document, whatever the chunking. */
import { documentSource, type FixtureEntry, type Part } from '../../src/core/import/fixture-source';
import { jsonSource } from '../../src/core/import/json-scanner';
import { ImportError } from '../../src/core/import/problems';

const ALL: ReadonlySet<Part> = new Set<Part>(['workspaces', 'api_keys', 'forms', 'datatables', 'responses', 'email_events', 'webhook_endpoints', 'rows']);

async function collect(entries: AsyncIterable<FixtureEntry>): Promise<FixtureEntry[]> {
  const out: FixtureEntry[] = [];
  for await (const e of entries) out.push(e);
  return out;
}

/** The text in chunks of `size` bytes. */
function chunked(text: string, size: number): () => AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text);
  return async function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  };
}

const doc = {
  responses: [{ id: 'r"1\\', form_id: 'f', score: 1.5e1, answers: [{ question_id: 'q', value: 'ä → 😀 \\" ]}' }] }, { form_id: 'f', score: -1 }, 7, null],
  datatables: [{ id: 't', rows: [{ data: { a: [1, { b: '}' }] } }, { data: {} }], name: 'n', workspace_id: 'w' }, 'x'],
  forms: [],
  extra: { nested: ['[', '{'] },
  email_events: {},
};

describe('jsonSource', () => {
  it.each([1, 2, 3, 7, 64, 1 << 20])('gives the same entries as the parsed document in chunks of %i bytes', async (size) => {
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2)]) {
      const expected = await collect(documentSource(doc).entries(ALL));
      expect(await collect(jsonSource(chunked(text, size)).entries(ALL))).toEqual(expected);
    }
  });

  it('skips the parts not asked for but still reports keys and lengths', async () => {
    const entries = await collect(jsonSource(chunked(JSON.stringify(doc), 5)).entries(new Set<Part>(['rows'])));
    expect(entries.filter((e) => e.kind === 'item')).toEqual([]);
    expect(entries.filter((e) => e.kind === 'row')).toHaveLength(2);
    expect(entries.filter((e) => e.kind === 'end')).toEqual([
      { kind: 'end', key: 'responses', length: 4 },
      { kind: 'end', key: 'datatables', length: 2 },
      { kind: 'end', key: 'forms', length: 0 },
    ]);
  });

  it('reports a document that is not an object', async () => {
    expect(await collect(jsonSource(chunked('[1, 2]', 2)).entries(ALL))).toEqual([{ kind: 'document', value: [1, 2] }]);
    expect(await collect(jsonSource(chunked(' 42 ', 1)).entries(ALL))).toEqual([{ kind: 'document', value: 42 }]);
  });

  it.each(['{"workspaces": [', '{"a": 1,}', '{"responses": [{"x": tru}]}', '{} {}', '', '{"a" 1}', '{"responses": [1 2]}'])(
    'rejects malformed JSON %p at $',
    async (text) => {
      const err = await collect(jsonSource(chunked(text, 3)).entries(ALL)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).problems).toEqual([{ path: '$', message: expect.stringMatching(/^malformed JSON: /) }]);
    },
  );
});
