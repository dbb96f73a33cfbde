import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { boundaries } from "./eslint.boundaries.js";
import { testConfigs, writeTestProgram } from "./scripts/test-program.mjs";

// The test code's types come from the one program of the plain test directories, as
// `make typecheck-tests` checks them, rather than from one program per test directory that each
// reads all the sources it imports again; the sources keep their own package's program.
const { plain } = testConfigs(import.meta.dirname);
const testProgram = plain.length > 0 ? writeTestProgram(import.meta.dirname, plain) : undefined;

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "packages/protocol/src/gen/**",
      "packages/protocol/test/interop/gen/**",
      "**/*.generated.ts",
      "bench/results/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["*.ts", "vitest.config.ts"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "separate-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
    },
  },
  ...(testProgram
    ? [
        {
          files: plain.map((c) => `${c.slice(0, -"/tsconfig.json".length)}/**/*.{ts,tsx,mts,cts}`),
          languageOptions: { parserOptions: { projectService: false, project: [testProgram] } },
        },
      ]
    : []),
  // Plain JavaScript (scripts, benchmarks, fixtures): the recommended rules, without type information.
  {
    files: ["**/*.mjs", "**/*.js", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
      sourceType: "module",
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  ...boundaries,
);
