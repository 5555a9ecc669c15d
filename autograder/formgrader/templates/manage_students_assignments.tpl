{#- A copy of nbgrader 0.9.6's manage_students_assignments.tpl
    (BSD-3-Clause, Copyright (c) 2014 Project Jupyter Contributors) in an autoescaping
    environment, changed only where it puts values inside JavaScript strings (|tojson)
    and loads late_marks.js after nbgrader's script (it says how late a submission is) -#}
{#- upstream-copy: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/manage_students_assignments.tpl sha256:cdb9b9ac6ccbca77753bebe4e19094b1b118dfa4be7f51c37672f56ac7013e88 -#}
{%- extends 'manage_students_base.tpl' -%}

{%- block head -%}
<script>
var student_id = {{ student_id|tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/manage_students_assignments.js"></script>
<script src="{{ base_url }}/formgrader/course_static/js/late_marks.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/manage_students">Students</a></li>
  <li class="active">{{ student_id }}</li>
</ol>
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th>Assignment ID</th>
  <th class="text-center">Overall Score</th>
  <th class="text-center">Code Score</th>
  <th class="text-center">Written Score</th>
  <th class="text-center">Task Score</th>
  <th class="text-center">Needs Manual Grade?</th>
</tr>
{%- endblock -%}

{%- block table_body -%}
<tr><td colspan="5">Loading, please wait...</td></tr>
{%- endblock -%}
