// Flow lists read from CSV traces, e.g. exported from another simulator or a production log.
//
// Format: the first line that is neither blank nor a comment is the header. It names the
// columns and must contain at least src, dst, size_bytes and start_ns, in any order; other
// columns are ignored, except an optional `tag` column whose non-empty values override the
// tag given to the loader for that row. Every later line is one flow with exactly as many
// fields as the header:
//   src, dst    node ids (unsigned 32-bit integers), distinct
//   size_bytes  unsigned 64-bit integer >= 1
//   start_ns    non-negative decimal number of nanoseconds, e.g. 40000000 or 1500.25 (or
//               with an exponent, 4e7); rounded to the nearest picosecond
// Lines whose first non-space character is '#' and blank lines are skipped anywhere. Fields
// are trimmed of spaces and tabs and may be double-quoted ("" for a quote inside). CRLF line
// ends and a UTF-8 byte-order mark are accepted.
//
// Flow DAGs (docs/workloads.md): with an `id` column (unsigned integers, unique) a trace
// may give each flow
//   after           the ids of flows it waits for, separated by spaces or ';': it starts
//                   once each of them is delivered to its receiver ...
//   after_delay_ns  ... plus this long (a compute gap), and not before start_ns
//   behind          the id of the flow before it on the same queue pair: it starts once
//                   that one has sent its last byte
//   qp              the id of its queue pair's first message: it is a later message of that
//                   QP (one PSN stream, one flow to the switches; `behind` must name the
//                   QP's previous message). Empty: a QP of its own
//   sport           its UDP source port (flows of one QP share it)
//   dport, path     its UDP destination port; the path ID it is pinned to (FlowSpec::path)
// Rows may come in any order; the flows are ordered so that each comes after those it
// waits for (among those free to go, in file order). A dependency on an id
// the trace does not have, a repeated id and a cycle are errors naming the lines.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "workload/flow_spec.h"

namespace rocelab {

// Flows in file order, then stably sorted by start (rows with equal start keep file order).
// Throws std::runtime_error "path:line: message" on any malformed line or header, and
// "path: message" if the file cannot be read or has no header.
std::vector<FlowSpec> load_flow_trace_csv(const std::string& path, const std::string& tag);

// Writes flows in this format, with the DAG columns (id = index in the list); reading it
// back gives the same flows.
void write_flow_trace_csv(std::ostream& out, const std::vector<FlowSpec>& flows);

}  // namespace rocelab
