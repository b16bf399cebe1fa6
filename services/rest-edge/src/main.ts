import { runRestEdgeProcess } from './process';

void runRestEdgeProcess();
