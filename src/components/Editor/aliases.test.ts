/** Texts kept from monaco-yaml's worker: those whose aliases would overflow its recursion (issue 31). */
import { describe, expect, it } from "vitest";
import { yamlServiceSafe } from "./aliases.ts";

describe("yamlServiceSafe", () => {
  it.each([
    [
      "a cyclic alias in a mapping",
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: &a {x: *a}\n",
      false,
    ],
    ["a cyclic alias in a list", "a: &a [*a]\n", false],
    ["a cycle in a later doc", "kind: Namespace\n---\nb: &b {c: [*b]}\n", false],
    ["an alias after its anchor closed", "a: &a {x: 1}\nb: *a\n", true],
    ["no aliases", "kind: Namespace\nmetadata: {name: shop}\n", true],
    ["a star that names no anchor", "hosts: ['*.example.com']\nx: &y 1\n", true],
  ])("%s", (_what, text, safe) => {
    expect(yamlServiceSafe(text)).toBe(safe);
  });
});
