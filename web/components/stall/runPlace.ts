/**
 * Where the run on this page ran (its metadata: build, node, commit, build
 * URL, job), for the stall cards' Copy text and their "where else it
 * occurred" link, without threading it through every card's props.
 */
import { createContext, useContext } from 'react';

export const RunPlace = createContext<Readonly<Record<string, string>>>({});

export const useRunPlace = (): Readonly<Record<string, string>> => useContext(RunPlace);
