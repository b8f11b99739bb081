/**
 * Kubernetes' CEL libraries (lists, regex, URLs, quantity, IP and CIDR, format, sets, the strings
 * extension): each file registers its functions with registerLibrary, and this index loads them all.
 * lib/cel/index.ts imports it once, so every environment has them. The last installer replaces the
 * engine's built-in overloads whose semantics differ from cel-go (RE2 `matches`, code-point string
 * functions); it runs after the libraries have registered their own functions (see
 * engine.replaceOverload).
 */

import { registerLibrary } from '../environment';
import './lists';
import './regex';
import './strings';
import './sets';
import './urls';
import './quantity';
import './ip';
import './format';
import './comprehensions';
import './stdlib';
import { installRe2Matches } from './regex';
import { installStringOverrides } from './strings';
import { installStdlibOverrides } from './stdlib';

registerLibrary((env) => {
  installRe2Matches(env);
  installStringOverrides(env);
  installStdlibOverrides(env);
});
