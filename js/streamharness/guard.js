// Imported first, before any library, this sends everything but the protocol's lines from
// standard output to standard error from the start: a banner a library prints as it is
// imported included. (runDriver, runSession and runHistory guard it when they start.)
//
//   import 'streamharness/guard';
//   import { something } from 'a-library-that-prints';

import { guardStdout } from './lib/io.js';

guardStdout();
