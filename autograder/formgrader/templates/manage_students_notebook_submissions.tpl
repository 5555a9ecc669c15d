{#- A copy of nbgrader 0.9.6's manage_students_notebook_submissions.tpl
    (BSD-3-Clause, Copyright (c) 2014 Project Jupyter Contributors) in an autoescaping
    environment, changed only where it puts values inside JavaScript strings (|tojson)
    and loads the course's copy of its script, and where it says how late the submission is
    (``late``, from autograder/formgrader/lateness.py) -#}
{#- upstream-copy: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/manage_students_notebook_submissions.tpl sha256:571edb1ad5a753a1c31833ef75b7a06a9ee8cc521a356c93f6693601139b4e68 -#}
{%- extends 'manage_students_base.tpl' -%}

{%- block head -%}
<script>
var student_id = {{ student_id|tojson }};
var assignment_id = {{ assignment_id|tojson }};
</script>

<script src="{{ base_url }}/formgrader/course_static/js/manage_students_notebook_submissions.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/manage_students">Students</a></li>
  <li><a href="{{ base_url }}/formgrader/manage_students/{{ student_id }}">{{ student_id }}</a></li>
  <li class="active">{{ assignment_id }}</li>
</ol>
{%- endblock -%}

{%- block messages -%}
{%- if late %}
<p><strong class="text-danger bpe-late">This submission is {{ late }}.</strong></p>
{%- endif %}
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th>Notebook ID</th>
  <th class="text-center">Overall Score</th>
  <th class="text-center">Code Score</th>
  <th class="text-center">Written Score</th>
  <th class="text-center">Task Score</th>
  <th class="text-center">Needs manual grade?</th>
  <th class="text-center">Tests failed?</th>
  <th class="text-center">Flagged?</th>
</tr>
{%- endblock -%}

{%- block table_body -%}
<tr><td colspan="7">Loading, please wait...</td></tr>
{%- endblock -%}
