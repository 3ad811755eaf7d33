// Package safefile is niro's one way to open the files it reads and to write
// the files it produces, so that no command can hang on a special file, lose
// a user's file, or overwrite its own input.
//
//   - [OpenRegular] and [ReadFile] open with O_NONBLOCK and check the opened
//     file with fstat: a FIFO, device or directory is an error, never a
//     blocked open, and there is no window between the check and the open.
//   - [Create] writes to a temporary file in the destination's directory and
//     [File.Commit] fsyncs and renames it over the destination, so that a
//     failure (a full disk, a signal) leaves the previous file untouched.
//     A destination that exists and is not a regular file (a character
//     device such as /dev/null, a FIFO) is written in place and never
//     truncated or removed.
//   - Every file opened here is recorded as an input of the command, and
//     [Claim] (which Create calls) refuses, as bad usage, an output that is
//     one of them ([os.SameFile]) or that another output of the same
//     command already claimed. [Reset] starts a command's record.
package safefile
