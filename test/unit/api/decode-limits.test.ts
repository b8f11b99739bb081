/**
 * parseYamlDocuments on broken text: the first error is yaml's own, with its position, and the
 * number of errors composed is bounded (each is an Error with a stack: unbounded, a 500 KB body
 * with a fault per line cost seconds, and a 400 KB merge patch audited as YAML 155 s).
 */
import { expect } from 'chai';
import YAML from 'yaml';
import { parseYamlDocuments } from '../../../lib/api/decode-limits';

const firstLine = (e: Error) => e.message.split('\n')[0];

describe('parseYamlDocuments on broken text', () => {
  it('a fault on every line: at most 100 errors, the first as yaml reports it', () => {
    const text = '\t- x\n'.repeat(20_000);
    const [doc] = parseYamlDocuments(text);
    const [theirs] = YAML.parseAllDocuments(text, { logLevel: 'error' }) as YAML.Document.Parsed[];
    expect(theirs.errors.length).to.be.above(1000);
    expect(doc.errors.length).to.equal(100);
    expect(firstLine(doc.errors[0])).to.equal(firstLine(theirs.errors[0]));
    expect(firstLine(doc.errors[0])).to.match(/at line 1, column 1:$/);
  });

  it('thousands of error tokens: the first is composed, and the document\'s first error is yaml\'s', () => {
    const text = `{"a": ${'][ '.repeat(5_000)}`;
    const tokens = Array.from(new YAML.Parser().parse(text)).filter((t) => t.type === 'error').length;
    expect(tokens).to.be.above(1000);
    const docs = parseYamlDocuments(text);
    const theirs = YAML.parseAllDocuments(text, { logLevel: 'error' }) as YAML.Document.Parsed[];
    expect(docs.length).to.equal(theirs.length);
    expect(docs[0].errors.length).to.be.at.most(101);
    expect(firstLine(docs[0].errors[0])).to.equal(firstLine(theirs[0].errors[0]));
  });

  it('a few errors: all of them, the first with its position', () => {
    const text = 'a: [1, 2\nb: {c\n';
    const docs = parseYamlDocuments(text);
    const theirs = YAML.parseAllDocuments(text, { logLevel: 'error' }) as YAML.Document.Parsed[];
    expect(docs[0].errors.length).to.equal(theirs[0].errors.length).and.to.be.above(1);
    expect(firstLine(docs[0].errors[0])).to.equal(firstLine(theirs[0].errors[0]));
  });
});
