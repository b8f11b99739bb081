/**
 * Every library's runtime cost table in one map, for lib/cel's estimator and runtime tracker (see
 * cost-table.ts for the shape). Functions absent here cost 1 per call.
 */

import type { CostTable } from './cost-table';
import { LIST_COSTS } from './lists';
import { REGEX_COSTS } from './regex';
import { STRING_COSTS } from './strings';
import { SET_COSTS } from './sets';
import { URL_COSTS } from './urls';
import { QUANTITY_COSTS } from './quantity';
import { IP_COSTS } from './ip';
import { FORMAT_COSTS } from './format';

export type { CostTable, CostFormula, CostOperand } from './cost-table';
export { STRING_TRAVERSAL, REGEX_LENGTH } from './cost-table';

export const LIBRARY_COSTS: CostTable = {
  ...LIST_COSTS,
  ...REGEX_COSTS,
  ...STRING_COSTS,
  ...SET_COSTS,
  ...URL_COSTS,
  ...QUANTITY_COSTS,
  ...IP_COSTS,
  ...FORMAT_COSTS,
};
