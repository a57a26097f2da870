/** The package version, written into the bundle by bin/build-cli.mjs ("dev" when run from sources, as in unit tests). */
declare const __KTL_VERSION__: string | undefined;

export const version = typeof __KTL_VERSION__ === "string" ? __KTL_VERSION__ : "dev";
