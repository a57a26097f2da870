// monaco-yaml's language worker, re-exported from our own file so Vite bundles it as a module worker (monaco-yaml's README, "Why doesn't it work with Vite?").
import "monaco-yaml/yaml.worker.js";
