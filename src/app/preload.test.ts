import { describe, expect, it } from "vitest";
import { preloadApp } from "../../vite.config.ts";

type Handler = (
  html: string,
  ctx: { bundle: Record<string, unknown> },
) => { attrs: Record<string, unknown> }[];

const handler = () => {
  const hook = preloadApp().transformIndexHtml as unknown as { handler: Handler };
  return hook.handler;
};

describe("index.html preloads the app's chunk (main.tsx starts the engine worker, then imports it)", () => {
  const bundle = {
    "assets/index-a.js": {
      type: "chunk",
      isEntry: true,
      fileName: "assets/index-a.js",
      imports: [],
      facadeModuleId: "/r/src/app/main.tsx",
    },
    "assets/boot-b.js": {
      type: "chunk",
      isEntry: false,
      fileName: "assets/boot-b.js",
      imports: ["assets/index-a.js", "assets/shared-c.js"],
      facadeModuleId: "/r/src/app/boot.tsx",
      viteMetadata: { importedCss: new Set(["assets/boot-d.css"]) },
    },
    "assets/shared-c.js": { type: "chunk", isEntry: false, fileName: "assets/shared-c.js", imports: [] },
  };

  it("links the app's CSS and modulepreloads its chunk and the chunks it imports, not the entry", () => {
    const tags = handler()("", { bundle });
    expect(tags.map((t) => [t.attrs.rel, t.attrs.href])).toEqual([
      ["stylesheet", "./assets/boot-d.css"],
      ["modulepreload", "./assets/boot-b.js"],
      ["modulepreload", "./assets/shared-c.js"],
    ]);
  });

  it("fails the build when the app's chunk is missing, rather than loading it late in silence", () => {
    const { "assets/boot-b.js": _, ...rest } = bundle;
    expect(() => handler()("", { bundle: rest })).toThrow(/boot\.tsx/);
  });
});
