/**
 * Workspaces of a fixture document (docs/import.md, "What is checked"): ids and links unique in the document and new
 * to the database; an absent link is derived from the name.
 */
import type { FixtureWorkspace } from './fixture-schema';
import type { ImportContext, Item, Rec } from './context';

function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

/**
 * Checks the document's workspaces and registers their ids as the workspaces it creates.
 * @returns the `workspaces` records to write.
 */
export async function checkWorkspaces(ctx: ImportContext, items: Item<FixtureWorkspace>[]): Promise<Rec[]> {
  const ids = await ctx.claimIds('workspaces', 'workspace', 'workspace', items);
  const exists = await ctx.existing('workspaces', 'id', ids);
  for (const id of ids) {
    ctx.docWorkspaces.add(id);
    if (!exists.has(id)) ctx.newWorkspaces.add(id);
  }

  const links = items.map((w, i) => (w.ok ? (w.value.link ?? (slugify(w.value.name) || slugify(ids[i]!) || ids[i]!)) : undefined));
  const takenLinks = await ctx.existing(
    'workspaces',
    'link',
    links.filter((l): l is string => l !== undefined),
  );
  const firstLink = new Map<string, number>();
  const records: Rec[] = [];
  items.forEach((w, i) => {
    const link = links[i];
    if (link === undefined) return;
    const path = `workspaces[${w.index}].link`;
    const hint = w.value.link === undefined ? ' (derived from the name; give another "link")' : '';
    const prev = firstLink.get(link);
    if (prev !== undefined) ctx.problems.add(path, `duplicate link "${link}" (first at workspaces[${prev}])${hint}`);
    else firstLink.set(link, w.index);
    if (takenLinks.has(link)) ctx.problems.add(path, `link "${link}" already exists${hint}`);
    records.push({ id: ids[i], name: w.value.name, link, created_at: ctx.iso(w.value.created_at) });
  });
  return records;
}
