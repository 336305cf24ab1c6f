# workspace.sh, sourced by the bench scripts: a scratch folder ($work) and the servers they start
# (each pid added to `pids`); on exit every server is stopped and $work removed, with any other
# path added to `scratch`.
work=$(mktemp -d)
pids=()
scratch=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work" "${scratch[@]}"
}
trap cleanup EXIT
