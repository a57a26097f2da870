/** Manifests import as text: Vite (the `ktl-yaml-as-text` plugin in vite.config.ts) and esbuild (`loader: { ".yaml": "text" }`) agree. */
declare module "*.yaml" {
  const text: string;
  export default text;
}
