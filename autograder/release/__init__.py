"""What goes out to students: the student bundle and, after the deadline, the solutions."""
