#!/usr/bin/env node
// ktl as the installed package runs it (npx kube-traffic-lab, kubectl ktl): the prebuilt bundle
// lib/ktl.mjs under a node shebang, so npm's command shims work wherever node does (Windows too,
// where bin/ktl's sh part has no sh to run it). The startup snapshot is for a checkout's ./bin/ktl.
import { pathToFileURL } from "node:url";
import { ensureBuilt } from "./build-cli.mjs";

let bundle;
try {
  bundle = await ensureBuilt();
} catch (e) {
  console.error(String(e.message ?? e));
  process.exit(2);
}
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
