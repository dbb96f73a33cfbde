// Writes that execute later, outside every sandbox: git options that put config or templates
// into a repository the user's next git command reads, and workspace files that an editor, a
// toolchain or another agent runs or obeys without being asked. Under the default policy none of
// them may be allowed without a person deciding.
import { describe, expect, it } from "vitest";
import { repoConfigEntryRunsProgram } from "@palisade/shield";
import { check, sh, WORKSPACE } from "./helpers.js";

const decision = async (tool: string, args: unknown): Promise<string> => (await check(tool, args)).decision;

describe("git clone / git init options that set config or templates are checked like git -c", () => {
  const runLater = [
    "git clone -c core.fsmonitor='touch FSMONITOR-RAN' src vendor/lib",
    "git clone --config core.fsmonitor=./run.sh src vendor/lib",
    "git clone --config=core.fsmonitor=./run.sh src vendor/lib",
    "git clone -ccore.fsmonitor=./run.sh src vendor/lib",
    "git clone -c CORE.FSMONITOR=./run.sh src vendor/lib",
    "git clone -c include.path=../evil.cfg src vendor/lib",
    "git clone -c includeIf.gitdir:vendor/.path=../evil.cfg src vendor/lib",
    "git clone -c core.hooksPath=hooks src vendor/lib",
    "git clone -c credential.helper='!sh run.sh' src vendor/lib",
    "git clone -c core.sshCommand='sh run.sh' src vendor/lib",
    "git clone -c core.pager='sh run.sh' src vendor/lib",
    "git clone -c core.editor=./run.sh src vendor/lib",
    "git clone -c diff.x.textconv=./run.sh src vendor/lib",
    "git clone -c filter.x.smudge=./run.sh src vendor/lib",
    "git clone -c alias.st='!sh run.sh' src vendor/lib",
    "git clone -c some.key.nobody.knows=1 src vendor/lib",
    "git clone --template=tpl src vendor/lib",
    "git clone --template tpl src vendor/lib",
    "git clone --separate-git-dir=../elsewhere src vendor/lib",
    "git clone --separate-git-dir ../elsewhere src vendor/lib",
    "git clone -u ./run.sh src vendor/lib",
    "git clone --upload-pack=./run.sh src vendor/lib",
    "git init --template=tpl vendor/lib",
    "git init --separate-git-dir=../elsewhere",
    "git -c core.fsmonitor=./run.sh clone src vendor/lib",
    "git -c core.fsmonitor=./run.sh status",
    "git -c unknown.section.key=1 status",
  ];
  for (const command of runLater) {
    it(`${command} is not allowed`, async () => {
      expect(await decision("shell__execute_command", sh(command))).not.toBe("allow");
    });
  }

  const harmless = [
    "git clone src vendor/lib",
    "git clone --depth 1 src vendor/lib",
    "git clone -c core.autocrlf=false src vendor/lib",
    "git clone --config core.eol=lf -c init.defaultBranch=main src vendor/lib",
    "git init",
  ];
  for (const command of harmless) {
    it(`${command} stays allowed`, async () => {
      expect(await decision("shell__execute_command", sh(command))).toBe("allow");
    });
  }

  it("git config with a program-running key asks, with a harmless key it does not trip the detector", async () => {
    const v = await check("shell__execute_command", sh("git config core.fsmonitor ./run.sh"));
    expect(v.decision).not.toBe("allow");
    expect(v.rules).toContain("persist.git-hooks");
    const ok = await check("shell__execute_command", sh("git config user.name dev"));
    expect(ok.rules).not.toContain("persist.git-hooks");
  });
});

describe("workspace files that run or steer something later: writes ask", () => {
  const sensitive = [
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".vscode/launch.json",
    ".idea/workspace.xml",
    ".devcontainer/devcontainer.json",
    ".devcontainer/post-create.sh",
    ".cargo/config.toml",
    ".cargo/config",
    "tools/.cargo/config.toml",
    ".yarnrc.yml",
    ".yarnrc",
    ".npmrc",
    ".pnpmfile.cjs",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".envrc",
    "mise.toml",
    ".mise.toml",
    "AGENTS.md",
    "packages/app/AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".github/copilot-instructions.md",
    ".github/instructions/ts.instructions.md",
    ".cursorrules",
    ".cursor/rules/style.mdc",
    ".claude/settings.json",
    ".windsurfrules",
    ".clinerules",
    ".git/hooks/pre-commit",
    "vendor/lib/.git/config",
    ".husky/pre-commit",
  ];
  for (const rel of sensitive) {
    it(`files__write_file ${rel} asks`, async () => {
      expect(await decision("files__write_file", { path: `${WORKSPACE}/${rel}`, content: "x" })).toBe("escalate");
    });
    it(`a shell write to ${rel} is not allowed`, async () => {
      expect(await decision("shell__execute_command", sh(`echo x > ${rel}`))).not.toBe("allow");
    });
  }
  it("copying or moving onto one of them asks too", async () => {
    expect(
      await decision("files__copy_file", {
        source: `${WORKSPACE}/t.json`,
        destination: `${WORKSPACE}/.vscode/tasks.json`,
      }),
    ).toBe("escalate");
    expect(
      await decision("files__move_file", { source: `${WORKSPACE}/t.md`, destination: `${WORKSPACE}/AGENTS.md` }),
    ).toBe("escalate");
  });
  it("ordinary workspace files stay allowed", async () => {
    for (const rel of ["src/index.ts", "README.md", "vscode-notes.txt", "config.toml", "Makefile", "package.json"]) {
      expect(await decision("files__write_file", { path: `${WORKSPACE}/${rel}`, content: "x" }), rel).toBe("allow");
    }
  });
  it("reading them is not asked", async () => {
    expect(await decision("files__read_file", { path: `${WORKSPACE}/AGENTS.md` })).toBe("allow");
    expect(await decision("shell__execute_command", sh("cat .vscode/tasks.json"))).toBe("allow");
  });
});

describe("a repository's own config: which entries run programs", () => {
  it.each([
    ["core.fsmonitor", "touch x", true],
    ["core.hooksPath", ".husky", true],
    ["include.path", "../x.cfg", true],
    ["remote.origin.url", "ext::sh -c x", true],
    ["remote.origin.url", "-uploadpack=x", true],
    ["submodule.lib.update", "!sh -c x", true],
    ["remote.origin.uploadpack", "x", true],
    ["filter.lfs.clean", "git-lfs clean -- %f", true],
    ["remote.origin.url", "https://github.com/a/b.git", false],
    ["remote.my.fork.fetch", "+refs/heads/*:refs/remotes/my.fork/*", false],
    ["branch.main.merge", "refs/heads/main", false],
    ["core.repositoryformatversion", "0", false],
    ["submodule.lib.update", "rebase", false],
    ["user.email", "a@example.com", false],
  ])("%s = %s: %s", (key, value, runs) => {
    expect(repoConfigEntryRunsProgram(key, value)).toBe(runs);
  });
});
