"""What an instructor reads after grading: the class summary and grades.csv."""
