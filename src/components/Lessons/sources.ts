/**
 * A lesson's source as a link: the catalogue writes each source as a
 * kubernetes/* file (`kubernetes/kubernetes pkg/proxy/topology.go
 * CategorizeEndpoints`), a KEP (`KEP-1669 (...)`) or an address with a note.
 * The reveal shows each with the page it names, so a room can check the claim.
 */
export interface SourceLink {
  /** Where the source is; undefined when it names nothing to open. */
  href: string | undefined;
  /** What the link says: the file, the KEP or the address. */
  text: string;
  /** What in it supports the answer (the function, the section), after the link. */
  note: string;
}

export function sourceLink(source: string): SourceLink {
  const url = /^(https:\/\/\S+)(?:\s+(.*))?$/.exec(source);
  if (url) return { href: url[1], text: url[1]!.replace(/^https:\/\//, ""), note: url[2] ?? "" };
  const kep = /^KEP-(\d+)(?:\s+(.*))?$/.exec(source);
  // A KEP's number is its tracking issue's in kubernetes/enhancements.
  if (kep)
    return {
      href: `https://github.com/kubernetes/enhancements/issues/${kep[1]}`,
      text: `KEP-${kep[1]}`,
      note: kep[2] ?? "",
    };
  const file = /^kubernetes\/([a-z-]+) (\S+)(?:\s+(.*))?$/.exec(source);
  if (file)
    return {
      href: `https://github.com/kubernetes/${file[1]}/blob/master/${file[2]}`,
      text: `kubernetes/${file[1]} ${file[2]}`,
      note: file[3] ?? "",
    };
  return { href: undefined, text: source, note: "" };
}
