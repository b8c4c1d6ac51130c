/**
 * A JUnit file as a JUnit reader nobody here wrote sees it: parsed by libxml2 (Python's lxml, strict: a bad
 * escape or a control character is an error) and validated against the documented JUnit schema
 * (test/fixtures/junit/junit.xsd); its test suites, test cases, failures and properties come back as JSON.
 */
import { runPython } from './venvPython.ts';

export interface JunitCase {
  classname: string;
  name: string;
  failure: { type: string | null; message: string | null; text: string } | null;
  systemOut: string;
}

export interface JunitSuite {
  name: string;
  tests: string;
  failures: string;
  hostname: string | null;
  properties: Record<string, string>;
  cases: JunitCase[];
}

const SCRIPT = String.raw`
import json, sys
from lxml import etree
path, xsd = sys.argv[1], sys.argv[2]
schema = etree.XMLSchema(etree.parse(xsd))
doc = etree.parse(path, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False))
if not schema.validate(doc):
    print(json.dumps({"invalid": [str(e) for e in schema.error_log]}))
    sys.exit(0)
suites = []
for s in doc.getroot().iter("testsuite"):
    cases = []
    for c in s.findall("testcase"):
        f = c.find("failure")
        out = c.find("system-out")
        cases.append({
            "classname": c.get("classname"), "name": c.get("name"),
            "failure": None if f is None else {"type": f.get("type"), "message": f.get("message"), "text": f.text or ""},
            "systemOut": "" if out is None else (out.text or ""),
        })
    props = {p.get("name"): p.get("value") for p in s.iterfind("properties/property")}
    suites.append({"name": s.get("name"), "tests": s.get("tests"), "failures": s.get("failures"),
                   "hostname": s.get("hostname"), "properties": props, "cases": cases})
print(json.dumps({"suites": suites}))
`;

/** The file's suites; throws with libxml2's words when it does not parse or does not match the schema. */
export function readJunit(path: string): JunitSuite[] {
  const xsd = new URL('../fixtures/junit/junit.xsd', import.meta.url).pathname;
  const out = JSON.parse(
    runPython(`import sys; sys.argv = ['x', ${JSON.stringify(path)}, ${JSON.stringify(xsd)}]\n${SCRIPT}`),
  ) as { suites: JunitSuite[] } | { invalid: string[] };
  if ('invalid' in out) throw new Error(`the JUnit file does not match the schema:\n${out.invalid.join('\n')}`);
  return out.suites;
}
