import { test as base, expect } from "@playwright/test";
import { PlaygroundPage } from "./pages/PlaygroundPage.ts";

/** Every test gets a fresh browser context (empty storage) with clipboard access, and the playground page object. */
export const test = base.extend<{ playground: PlaygroundPage }>({
  context: async ({ context, baseURL }, use) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: new URL(baseURL!).origin,
    });
    await use(context);
  },
  playground: async ({ page }, use) => {
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await use(new PlaygroundPage(page));
    expect(errors, "uncaught errors in the page").toEqual([]);
  },
});

export { expect };
