/** Copies a folder tree, keeping only files whose names pass `keep`. */
export async function copy(
  from: string,
  to: string,
  keep: (name: string) => boolean = () => true,
): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) await copy(source, target, keep);
    else if (entry.isFile && keep(entry.name)) await Deno.copyFile(source, target);
  }
}
