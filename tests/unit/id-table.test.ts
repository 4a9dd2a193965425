/** The compact id table of the importer (src/core/import/id-table.ts) keeps the first index of each id. */
import { IdTable } from '../../src/core/import/id-table';

describe('IdTable', () => {
  it('returns the first index of an id added again, across growth, and undefined for new ids', () => {
    const table = new IdTable();
    for (let i = 0; i < 20_000; i++) expect(table.add(`rsp_${i}`, i)).toBeUndefined();
    expect(table.add('rsp_0', 20_000)).toBe(0);
    expect(table.add('rsp_19999', 20_001)).toBe(19_999);
    expect(table.get('rsp_123')).toBe(123);
    expect(table.get('rsp_20000')).toBeUndefined();
  });

  it('sized for the expected ids, still takes more of them and of any length', () => {
    const table = new IdTable(1000);
    for (let i = 0; i < 5000; i++) expect(table.add(`${'x'.repeat(i % 64)}_${i}`, i)).toBeUndefined();
    expect(table.add('_0', 5000)).toBe(0);
    expect(table.get(`${'x'.repeat(4999 % 64)}_4999`)).toBe(4999);
    expect(table.get('_5000')).toBeUndefined();
  });

  it('tells apart ids that differ only in non-ASCII characters or length', () => {
    const table = new IdTable();
    const ids = ['é', 'e', 'ée', '', 'x'.repeat(300), 'x'.repeat(301), '😀', '\u0000'];
    ids.forEach((id, i) => expect(table.add(id, i)).toBeUndefined());
    ids.forEach((id, i) => expect(table.get(id)).toBe(i));
  });
});
