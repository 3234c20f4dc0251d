#!/usr/bin/env node
// A conformance driver in plain Node (no packages): it speaks the driver protocol of
// conformance/PROTOCOL.md on stdin/stdout and runs every step as a real teamai-ref process.
// It shows what an implementation in another language needs: write the sandbox's trees, say
// where each asset is, run the command with the protocol's environment, and read the state back.
//
//   teamai-conformance run --impl "node conformance/drivers/examples/teamai-ref-driver.mjs [COMMAND...]"
//
// COMMAND runs the reference (default: teamai-ref; e.g. "python3 -m reference").
// Declared: recall, hook, pull, stats and contribute, all ten agents, a recall log; not review
// (it needs a git repository), hold (a file lock Node cannot take), spoil (the index is the
// reference's own file) or repeat.
// tests/conformance/test_node_driver.py runs it over a slice of the corpus beside the reference.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

const command = process.argv.length > 2 ? process.argv.slice(2) : ["teamai-ref"];
const AGENTS = ["claude", "codex", "cursor", "copilot", "codebuddy", "workbuddy", "qoder", "opencode", "pi", "omp"];
const PASSED_ON = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT"];
let box = null; // the open case: { root, env, contributions }

// -- the sandbox ------------------------------------------------------------------------------
function writeTree(folder, files) {
  fs.mkdirSync(folder, { recursive: true });
  for (const [rel, text] of Object.entries(files ?? {})) {
    if (text === null) continue;
    const file = path.join(folder, ...rel.split("/"));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

// The tree path of each asset (the table in reference/team/tree.py) -> the absolute path recall prints.
function assets(folder, files, withLearnings, into = {}) {
  for (const rel of Object.keys(files ?? {})) {
    if (!rel.endsWith(".md") || rel.split("/").some((part) => part.startsWith("."))) continue;
    let tree = null;
    if (rel.startsWith("learnings/")) tree = withLearnings ? rel.slice(0, -3) : null;
    else if (/^skills\/[^/]+\/SKILL\.md$/.test(rel)) tree = path.posix.dirname(rel);
    else if (/^(rules|docs)\//.test(rel) || /^teamwiki\/evidence\/code\/[^/]+\/./.test(rel)) tree = rel;
    if (tree !== null && !(tree in into)) into[tree] = path.join(folder, ...rel.split("/"));
  }
  return into;
}

function open(m) {
  const root = fs.realpathSync(m.sandbox);
  const team = path.join(root, "team");
  const env = Object.fromEntries(PASSED_ON.filter((k) => k in process.env).map((k) => [k, process.env[k]]));
  Object.assign(env, { HOME: path.join(root, "home"), TEAMAI_HOME: path.join(root, "state"), TEAMAI_TEAM: team,
                       TEAMAI_LOCK_WAIT: "0.2" });
  writeTree(team, m.team);
  fs.mkdirSync(env.HOME, { recursive: true });
  const roots = m.learnings_roots ?? [];
  const learnings = roots.map((_, i) => path.join(root, `learnings-${i + 1}`));
  roots.forEach((tree, i) => writeTree(learnings[i], tree));
  if (learnings.length) env.TEAMAI_LEARNINGS = learnings.join(":");
  const answer = { paths: assets(team, m.team, learnings.length === 0), user_paths: {},
                   roots: { team, user_team: null, learnings: learnings.length ? learnings : [path.join(team, "learnings")] } };
  roots.forEach((tree, i) => { // a learning's id is its path under its root; the first root wins
    for (const rel of Object.keys(tree ?? {}).filter((r) => r.endsWith(".md") && !r.split("/").some((p) => p.startsWith(".")))) {
      answer.paths[`learnings/${rel.slice(0, -3)}`] ??= path.join(learnings[i], ...rel.split("/"));
    }
  });
  if (m.user_team != null) {
    const userTeam = path.join(root, "user-team");
    writeTree(userTeam, m.user_team);
    env.TEAMAI_USER_TEAM = answer.roots.user_team = userTeam;
    answer.user_paths = assets(userTeam, m.user_team, true);
  }
  if (m.withheld != null) {
    env.TEAMAI_WITHHELD_FILE = path.join(root, "withheld");
    if (m.withheld === "unreadable") fs.mkdirSync(env.TEAMAI_WITHHELD_FILE); // a folder cannot be read as a list
    else fs.writeFileSync(env.TEAMAI_WITHHELD_FILE, m.withheld.map((slug) => `${slug}\n`).join(""));
  }
  box = { root, env, contributions: 0 };
  return answer;
}

// -- the steps: one teamai-ref process each, at the request's instant, with its environment -----
function run(args, m, input = "") {
  const env = { ...box.env, TEAMAI_NOW: m.now, ...(m.env ?? {}) };
  const done = spawnSync(command[0], [...command.slice(1), ...args],
                         { input, env, cwd: box.root, encoding: "utf8", maxBuffer: 256 << 20 });
  if (done.error) throw done.error;
  return { exit: done.status ?? 128, stdout: done.stdout, stderr: done.stderr };
}

function recall(m) {
  return run(["recall", m.query, ...(m.caller ? ["--caller", m.caller] : []), ...(m.check ? ["--check"] : [])], m);
}

function contribute(m) {
  const file = path.join(box.root, `contribution-${++box.contributions}.md`);
  fs.writeFileSync(file, m.text);
  return run(["contribute", "--file", file, "--title", m.title], m);
}

// -- the state: read where the reference keeps it (reference/team/config.py) --------------------
function stateDir() {
  const digest = createHash("sha256").update(box.env.TEAMAI_TEAM).digest("hex").slice(0, 16);
  return path.join(box.env.TEAMAI_HOME, "workspaces", digest);
}

function read(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
}

// The votes ledger is YAML (teamai's shape): read its "votes:" mapping of "  <key>:" entries and
// "    <field>: <value>" lines, each key and value a plain, single- or double-quoted scalar.
function scalar(text) {
  text = text.trim();
  if (text === "null" || text === "~" || text === "") return null;
  if (/^-?\d+$/.test(text)) return Number(text);
  if (text.startsWith('"')) return JSON.parse(text);
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  return text;
}

function votes(text) {
  const out = {};
  let inVotes = false;
  let key = null;
  for (const line of (text ?? "").split("\n")) {
    let m;
    if (/^\S/.test(line)) [inVotes, key] = [/^votes:\s*$/.test(line), null];
    else if (inVotes && (m = /^  (\S.*?):\s*$/.exec(line))) out[(key = scalar(m[1]))] = {};
    else if (inVotes && key !== null && (m = /^    ([a-z_]+):(?: (.*))?$/.exec(line))) out[key][m[1]] = scalar(m[2] ?? "");
  }
  return out;
}

function observe(m) {
  const dir = stateDir();
  const log = (read(path.join(dir, "recall-log.jsonl")) ?? "").split("\n").filter((l) => l.trim()).flatMap((l) => {
    try { return [JSON.parse(l)]; } catch { return []; } // a torn or foreign line is not a log line
  });
  const answer = { votes: votes(read(path.join(dir, "votes.yaml"))), log, stats: null, raw: {} };
  if (m.want?.includes("credited")) {
    // Which reads were credited, from teamai-ref's own marks: a consumed line with credited: true.
    answer.credited = log.filter((l) => l?.kind === "consumed" && l.credited === true)
      .map((l) => ({ session: String(l.session ?? ""), key: String(l.key ?? ""), path: String(l.evidence?.path ?? "") }));
  }
  if (m.want?.includes("stats")) {
    const done = run(["stats", "--json"], m);
    if (done.exit === 0) answer.stats = JSON.parse(done.stdout);
  }
  if (m.want?.includes("raw")) {
    for (const [scope, folder] of [["workspace", dir], ["user", path.join(box.env.TEAMAI_HOME, "user")]]) {
      for (const [name, file] of [["log", "recall-log.jsonl"], ["votes", "votes.yaml"], ["upvoted", "upvoted-sessions.json"]]) {
        const text = read(path.join(folder, file));
        if (text !== null) answer.raw[`${scope}/${name}`] = text;
      }
    }
  }
  return answer;
}

// -- the protocol ---------------------------------------------------------------------------------
const handlers = {
  start: () => ({
    protocol: 1,
    implementation: { name: "teamai-ref via a Node driver", version: run0(["--version"]).trim().split(" ").pop() },
    capabilities: { commands: ["recall", "hook", "pull", "stats", "contribute"], agents: AGENTS, log: true, hold: [], credited: true,
                    repeat: false },
  }),
  open,
  recall,
  hook: (m) => run(["hook-dispatch", m.event, "--tool", m.agent], m, JSON.stringify(m.payload)),
  pull: (m) => run(["pull"], m),
  stats: (m) => run(m.json ? ["stats", "--json"] : ["stats"], m),
  contribute,
  observe,
  close: () => { box = null; return {}; },
  stop: () => ({}),
};

function run0(args) {
  const done = spawnSync(command[0], [...command.slice(1), ...args], { encoding: "utf8" });
  return done.stdout || "teamai-ref ?";
}

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  let message = {};
  let answer;
  try {
    message = JSON.parse(line);
    const handler = handlers[message.cmd];
    if (!handler) throw new Error(`not declared: ${message.cmd}`);
    answer = { seq: message.seq, ok: true, ...handler(message) };
  } catch (error) {
    answer = { seq: Number.isInteger(message.seq) ? message.seq : null, ok: false,
               error: { message: String(error?.message ?? error), traceback: String(error?.stack ?? "") } };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
  if (message.cmd === "stop") break;
}
