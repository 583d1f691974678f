// The thread boundary's typed map (workers/protocol.ts TaskMap) against what
// workers/index.ts really exports. The main thread trusts the map when it
// types a task's options and answer (src/pool/pool.ts), so the two must not
// drift: the types below fail to compile when a task is missing, extra, or
// takes other options or answers with another value than its entry says;
// the test proves at run time that the module exports exactly those names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tasks from '../../workers/index.js';
import type { TaskMap, TaskName, TaskOf } from '../../workers/protocol.js';

type Exported = typeof tasks;
/** `true` when two key sets are equal; otherwise the compile fails on the assignment below. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
const sameNames: SameKeys<Exported, TaskMap> = true;
/** Each export is assignable to the task type its TaskMap entry gives. */
const typed: { [Name in TaskName]: TaskOf<Name> } = tasks;

/** Every entry of TaskMap, as a value (the map itself is a type). */
const NAMES = { render: 1, validate: 1, 'session-operation': 1, warm: 1, 'check-deployment': 1, linearize: 1, 'image-compress': 1, 'font-subset': 1, 'font-register': 1, merge: 1, split: 1, sign: 1, 'fill-form': 1, redact: 1, optimize: 1, 'extract-text': 1, 'capability-extract-text': 1, compare: 1, 'capability-compare': 1, 'forensic-analyze': 1, 'ai-certify': 1, parse: 1, 'rag-chunk': 1, 'rag-embed': 1, 'compliance-check': 1, 'check-accessibility': 1, 'rag-index': 1, 'rag-search': 1 } satisfies Record<TaskName, 1>;

test('workers/index.ts exports exactly the tasks of TaskMap, each a function', () => {
  assert.equal(sameNames, true);
  assert.deepEqual(Object.keys(tasks).sort(), Object.keys(NAMES).sort());
  for (const name of Object.keys(NAMES) as TaskName[]) assert.equal(typeof typed[name], 'function', name);
});
