/** A CI node's name on one line: never broken, not even at its hyphens (mi325-agent-2-gpu-partition-07). */
export function NodeName({ node }: { node: string }) {
  return (
    <span className="nowrap" data-testid="node-name">
      {node}
    </span>
  );
}
