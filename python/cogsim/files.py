"""Files a benchmark reads or writes beyond its options (a seed list, a release's image files):
bounded reads of files cogsim does not trust (regular files only, within a size limit, JSON within a
depth limit), their names and content quoted escaped in messages, and atomic writes that never
follow a link. The option checks and file options are ``cogsim.envs.options``."""

from cogsim._files import write_bytes_atomic, write_text_atomic
from cogsim._untrusted import load_json, printable, read_file, read_text_file, shown

__all__ = ["load_json", "printable", "read_file", "read_text_file", "shown", "write_bytes_atomic", "write_text_atomic"]
